/// Cuts a byte stream into records at line feeds, for imports that arrive in pieces: JSON lines, or CSV,
/// where a line feed inside a quoted field does not end the record. Holds only the record being cut, and
/// refuses one longer than `maxRecordBytes` rather than growing without bound.
struct RecordSplitter {
    struct Record {
        /// The 1-based line the record starts on.
        var line: Int
        var bytes: [UInt8]
        /// The record was longer than the limit; `bytes` holds only its start.
        var truncated: Bool
    }

    let quoteAware: Bool
    let maxRecordBytes: Int
    private var pending: [UInt8] = []
    private var inQuotes = false
    private var truncated = false
    private var line = 1
    private var recordLine = 1

    init(quoteAware: Bool, maxRecordBytes: Int = 1 << 20) {
        self.quoteAware = quoteAware
        self.maxRecordBytes = maxRecordBytes
    }

    /// The records the piece completes, in order.
    mutating func push(_ piece: [UInt8]) -> [Record] {
        var records: [Record] = []
        var start = 0
        piece.withUnsafeBufferPointer { bytes in
            for i in bytes.indices {
                let byte = bytes[i]
                if byte == 0x0A {
                    line += 1
                    if inQuotes { continue }
                    append(bytes[start..<i])
                    records.append(Record(line: recordLine, bytes: pending, truncated: truncated))
                    // A fresh array: the record shares the old one's storage, and keeping its capacity
                    // would copy that whole capacity for every later record.
                    pending = []
                    truncated = false
                    recordLine = line
                    start = i + 1
                } else if quoteAware && byte == UInt8(ascii: "\"") {
                    // RFC 4180: a doubled quote inside quotes toggles twice, so parity tells where we are.
                    inQuotes.toggle()
                }
            }
            append(bytes[start...])
        }
        return records
    }

    /// The last record when the stream did not end in a line feed.
    mutating func finish() -> Record? {
        defer { pending = []; truncated = false }
        return pending.isEmpty && !truncated ? nil : Record(line: recordLine, bytes: pending, truncated: truncated)
    }

    private mutating func append(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
        let room = maxRecordBytes - pending.count
        if bytes.count > room { truncated = true }
        if room > 0 { pending += bytes.prefix(room) }
    }
}
