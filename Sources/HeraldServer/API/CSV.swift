/// RFC 4180 CSV: fields separated by commas, quoted with `"` when they hold commas, quotes or line breaks.
enum CSV {
    /// Reads records one at a time from a byte buffer, so a large import never holds every row parsed.
    struct Reader {
        let bytes: [UInt8]
        var i = 0
        var line = 1

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// The next record and the 1-based line it starts on; quoted fields may span lines.
        mutating func next() -> (line: Int, fields: [String])? {
            var fields: [String] = []
            var field: [UInt8] = []
            var inQuotes = false
            var fieldStarted = false
            let recordLine = line
            while i < bytes.count {
                let c = bytes[i]
                i += 1
                if inQuotes {
                    if c == UInt8(ascii: "\"") {
                        if i < bytes.count, bytes[i] == UInt8(ascii: "\"") { field.append(c); i += 1 } else { inQuotes = false }
                    } else {
                        if c == 0x0A { line += 1 }
                        field.append(c)
                    }
                    continue
                }
                switch c {
                case UInt8(ascii: "\"") where field.isEmpty: inQuotes = true; fieldStarted = true
                case UInt8(ascii: ","):
                    fields.append(String(decoding: field, as: UTF8.self)); field.removeAll(keepingCapacity: true); fieldStarted = true
                case 0x0D: continue
                case 0x0A:
                    line += 1
                    if fieldStarted || !field.isEmpty || !fields.isEmpty {
                        fields.append(String(decoding: field, as: UTF8.self))
                        return (recordLine, fields)
                    }
                    return next()   // blank line
                default: field.append(c); fieldStarted = true
                }
            }
            if fieldStarted || !field.isEmpty || !fields.isEmpty {
                fields.append(String(decoding: field, as: UTF8.self))
                return (recordLine, fields)
            }
            return nil
        }
    }

    static func escape(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func line(_ values: [String]) -> String { values.map(escape).joined(separator: ",") + "\n" }
}
