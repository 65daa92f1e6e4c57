/// Cuts a byte stream into JSON objects, for imports of files other systems export, whichever of the usual
/// forms the file takes: JSON lines (one object per line), a JSON array of objects, or a query answer
/// `{"results": [ ... ]}` (LeanCloud's REST shape; the other keys of that object are ignored), and several
/// such documents one after another (pages of LeanCloud's Scan API saved in one file). The form is told
/// from each document's first bytes. Holds only the object being cut, and refuses one longer than
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
    /// The most bytes held while the form is not yet told.
    static let maxOpeningBytes = 64 << 10
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
    /// The array of records has closed; the rest of its document is skipped.
    private var closed = false
    /// Lines before the JSON lines started (after an earlier document).
    private var lineOffset = 0

    public init(maxRecordBytes: Int = 1 << 20) {
        self.maxRecordBytes = maxRecordBytes
        lines = RecordSplitter(quoteAware: false, maxRecordBytes: maxRecordBytes)
    }

    /// The records the piece completes, in order.
    public mutating func push(_ piece: [UInt8]) -> [Record] {
        var out: [Record] = []
        var rest = piece[...]
        while !rest.isEmpty {
            switch form {
            case .lines:
                out += lineRecords(lines.push(Array(rest)))
                rest = []
            case .array, .results:
                rest = scan(rest, into: &out)
            case .undecided:
                opening += rest
                rest = []
                // Only whitespace can keep the form untold; past a bound, the bytes are taken as JSON lines
                // (whose records have their own bound) rather than held.
                if let decided = Self.form(of: opening, final: opening.count > Self.maxOpeningBytes) { rest = start(decided) }
            }
        }
        return out
    }

    /// What the end of the stream completes: a last line without a line feed, or an object left open.
    public mutating func finish() -> [Record] {
        var out: [Record] = []
        // Whatever is left undecided is told now (a last short document, or only whitespace).
        while form == .undecided {
            out += push(Array(start(Self.form(of: opening, final: true) ?? (.lines, 0))))
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

    /// Takes the form the opening bytes showed; returns the bytes after the part that showed it.
    private mutating func start(_ decided: (Form, consumed: Int)) -> ArraySlice<UInt8> {
        form = decided.0
        let rest = opening[decided.consumed...]
        line += opening[..<decided.consumed].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        opening = []
        switch form {
        case .lines: lineOffset = line - 1
        case .array: depth = 1; recordDepth = 1
        case .results: depth = 2; recordDepth = 2
        case .undecided: break
        }
        return rest
    }

    /// A document of the array forms has ended: another may follow (LeanCloud's Scan API answers one page of
    /// `{"results": [...], "cursor": ...}` at a time, and a saved export is often those pages one after another).
    private mutating func startAgain() {
        form = .undecided
        depth = 0
        inString = false
        escaped = false
        closed = false
        strayLine = nil
    }

    private mutating func lineRecords(_ records: [RecordSplitter.Record]) -> [Record] {
        records.compactMap { r in
            // Blank lines are not records.
            if !r.truncated && r.bytes.allSatisfy(Self.isSpace) { return nil }
            count += 1
            return Record(line: r.line + lineOffset, index: count, bytes: r.bytes, truncated: r.truncated, problem: nil)
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

    /// Scans until the piece ends (returns nothing) or its document ends (returns the bytes after it).
    private mutating func scan(_ piece: ArraySlice<UInt8>, into out: inout [Record]) -> ArraySlice<UInt8> {
        for i in piece.indices {
            let byte = piece[i]
            if byte == 0x0A { line += 1 }
            let recording = current != nil
            if recording { append(byte) }
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            if closed {
                // The rest of `{"results": [...], ...}`: only its end matters.
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { startAgain(); return piece[(i + 1)...] }
                default: break
                }
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
                    if depth == 0 { startAgain(); return piece[(i + 1)...] }
                }
            case UInt8(ascii: ","):
                if depth == recordDepth, let stray = strayLine { out.append(strayRecord(stray)) }
            default:
                if atRecordLevel && !Self.isSpace(byte) { strayLine = line }
            }
        }
        return []
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
