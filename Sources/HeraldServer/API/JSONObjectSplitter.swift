/// Cuts a byte stream into JSON objects, for imports of files other systems export, whichever of the usual
/// forms the file takes: JSON lines (one object per line), a JSON array of objects, or a query answer
/// `{"results": [ ... ]}` (LeanCloud's REST shape; the other keys of that object are ignored). The form
/// is told from the first bytes. Holds only the object being cut, and refuses one longer than
/// `maxRecordBytes` rather than growing without bound; pieces may cut the stream anywhere.
public struct JSONObjectSplitter: Sendable {
    public struct Record: Sendable {
        /// The 1-based line the record starts on.
        public var line: Int
        /// The 1-based position of the record in the file (useful when the whole file is one line).
        public var index: Int
        /// The object's bytes (its start only when `truncated`); empty when `problem` is set.
        public var bytes: [UInt8]
        /// The object was longer than the limit.
        public var truncated: Bool
        /// Not an object: an array element that is another value, or an object the file ends inside.
        public var problem: String?
    }

    private enum Form { case undecided, lines, array, results }

    public let maxRecordBytes: Int
    private var form = Form.undecided
    /// The first bytes, held until they tell the form.
    private var opening: [UInt8] = []
    private var lines: RecordSplitter
    // The array forms: a byte scanner that knows strings and nesting.
    private var depth = 0
    /// Where the records are: 1 inside `[ ... ]`, 2 inside `{"results": [ ... ]}`.
    private var recordDepth = 1
    private var inString = false
    private var escaped = false
    private var line = 1
    private var count = 0
    private var current: [UInt8]?
    private var currentLine = 1
    private var truncated = false
    private var strayLine: Int?
    /// The array of records has closed; what follows is ignored.
    private var closed = false

    public init(maxRecordBytes: Int = 1 << 20) {
        self.maxRecordBytes = maxRecordBytes
        lines = RecordSplitter(quoteAware: false, maxRecordBytes: maxRecordBytes)
    }

    /// The records the piece completes, in order.
    public mutating func push(_ piece: [UInt8]) -> [Record] {
        switch form {
        case .lines: return lineRecords(lines.push(piece))
        case .array, .results: return scan(piece)
        case .undecided:
            opening += piece
            guard let decided = Self.form(of: opening, final: false) else { return [] }
            return start(decided)
        }
    }

    /// What the end of the stream completes: a last line without a line feed, or an object left open.
    public mutating func finish() -> [Record] {
        var out: [Record] = []
        if form == .undecided {
            out = start(Self.form(of: opening, final: true) ?? (.lines, 0))
        }
        switch form {
        case .lines:
            out += lineRecords(lines.finish().map { [$0] } ?? [])
        case .array, .results:
            if current != nil {
                count += 1
                out.append(Record(line: currentLine, index: count, bytes: [], truncated: false,
                                  problem: "the file ends inside this object (a cut-off export?)"))
                current = nil
            } else if let stray = strayLine {
                out.append(strayRecord(stray))
            }
        case .undecided: break
        }
        return out
    }

    private mutating func start(_ decided: (Form, consumed: Int)) -> [Record] {
        form = decided.0
        let rest = Array(opening[decided.consumed...])
        line += opening[..<decided.consumed].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        opening = []
        switch form {
        case .lines: return lineRecords(lines.push(rest))
        case .array: depth = 1; recordDepth = 1; return scan(rest)
        case .results: depth = 2; recordDepth = 2; return scan(rest)
        case .undecided: return []
        }
    }

    private mutating func lineRecords(_ records: [RecordSplitter.Record]) -> [Record] {
        records.compactMap { r in
            // Blank lines are not records.
            if !r.truncated && r.bytes.allSatisfy(Self.isSpace) { return nil }
            count += 1
            return Record(line: r.line, index: count, bytes: r.bytes, truncated: r.truncated, problem: nil)
        }
    }

    /// Which form the opening bytes show, and how many bytes the scanner should skip (the `[` or the
    /// `{"results": [`); nil while more bytes are needed to tell.
    private static func form(of bytes: [UInt8], final: Bool) -> (Form, consumed: Int)? {
        let pattern: [[UInt8]] = [Array("{".utf8), Array("\"results\"".utf8), Array(":".utf8), Array("[".utf8)]
        // A UTF-8 byte order mark, as some Windows tools write, is skipped in every form.
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        if !final && bytes.count < bom.count && bom.starts(with: bytes) { return nil }
        let start = bytes.starts(with: bom) ? bom.count : 0
        var i = start
        while i < bytes.count, isSpace(bytes[i]) { i += 1 }
        guard i < bytes.count else { return final ? (.lines, start) : nil }
        if bytes[i] == UInt8(ascii: "[") { return (.array, i + 1) }
        for token in pattern {
            while i < bytes.count, isSpace(bytes[i]) { i += 1 }
            for expected in token {
                guard i < bytes.count else { return final ? (.lines, start) : nil }
                guard bytes[i] == expected else { return (.lines, start) }
                i += 1
            }
        }
        return (.results, i)
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    private mutating func scan(_ piece: [UInt8]) -> [Record] {
        var out: [Record] = []
        for byte in piece {
            if byte == 0x0A { line += 1 }
            if closed { continue }
            let recording = current != nil
            if recording { append(byte) }
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            let atRecordLevel = depth == recordDepth && !recording && strayLine == nil
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                if atRecordLevel { strayLine = line }
            case UInt8(ascii: "{") where atRecordLevel:
                current = [byte]
                currentLine = line
                truncated = false
                depth += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if atRecordLevel { strayLine = line }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if recording && depth == recordDepth {
                    count += 1
                    out.append(Record(line: currentLine, index: count, bytes: current ?? [], truncated: truncated, problem: nil))
                    current = nil
                } else if depth < recordDepth {
                    if let stray = strayLine { out.append(strayRecord(stray)) }
                    closed = true
                }
            case UInt8(ascii: ","):
                if depth == recordDepth, let stray = strayLine { out.append(strayRecord(stray)) }
            default:
                if atRecordLevel && !Self.isSpace(byte) { strayLine = line }
            }
        }
        return out
    }

    private mutating func strayRecord(_ line: Int) -> Record {
        strayLine = nil
        count += 1
        return Record(line: line, index: count, bytes: [], truncated: false, problem: "this element is not a JSON object")
    }

    private mutating func append(_ byte: UInt8) {
        guard var bytes = current else { return }
        current = nil   // keeps `bytes` uniquely referenced, so appending does not copy
        if bytes.count < maxRecordBytes { bytes.append(byte) } else { truncated = true }
        current = bytes
    }
}
