extension JWT {
    /// A JSON value, as JWT headers and claims hold them. Kept here (rather than using JSONSerialization) so
    /// that parsing and building tokens stays off Foundation and its NSNumber bridging.
    public enum Value: Sendable, Equatable, Hashable {
        case string(String)
        /// A number written without fraction or exponent that fits in 64 bits.
        case integer(Int64)
        case number(Double)
        case bool(Bool)
        case null
        case array([Value])
        case object([String: Value])

        /// The string, if this is one.
        public var stringValue: String? {
            if case .string(let value) = self { return value }
            return nil
        }

        /// The integer, if this is an integral number.
        public var integerValue: Int64? {
            switch self {
            case .integer(let value): return value
            case .number(let value) where value.rounded() == value && abs(value) < 9.0e15: return Int64(value)
            default: return nil
            }
        }

        /// Compact JSON text; object keys sorted so equal values encode identically.
        public var jsonText: String {
            var out: [UInt8] = []
            JSONWriter.write(self, into: &out)
            return String(decoding: out, as: UTF8.self)
        }

        /// Parses JSON text (RFC 8259); nil if it is not valid JSON or nests deeper than 64 levels.
        public init?<S: StringProtocol>(parsing text: S) {
            self.init(parsing: Array(text.utf8))
        }

        /// Parses UTF-8 JSON bytes; nil if they are not valid JSON or nest deeper than 64 levels.
        public init?(parsing bytes: [UInt8]) {
            var parser = JSONParser(bytes)
            guard let value = parser.parseDocument() else { return nil }
            self = value
        }
    }
}

enum JSONWriter {
    static func write(_ value: JWT.Value, into out: inout [UInt8]) {
        switch value {
        case .string(let string): writeString(string, into: &out)
        case .integer(let integer): out += Array(String(integer).utf8)
        case .number(let number):
            // Swift's shortest round-trip form ("1.0", "0.1", "1e+20") is valid JSON and parses back as a number.
            out += Array((number.isFinite ? "\(number)" : "null").utf8)
        case .bool(let bool): out += Array((bool ? "true" : "false").utf8)
        case .null: out += Array("null".utf8)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            writeObject(members.sorted { $0.key < $1.key }, into: &out)
        }
    }

    /// Writes members in the given order.
    static func writeObject(_ members: [(key: String, value: JWT.Value)], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            writeString(member.key, into: &out)
            out.append(UInt8(ascii: ":"))
            write(member.value, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    static func writeString(_ string: String, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xf)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

struct JSONParser {
    private let bytes: [UInt8]
    private var position = 0
    private static let maximumDepth = 64

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() -> JWT.Value? {
        guard let value = parseValue(depth: 0) else { return nil }
        skipWhitespace()
        return position == bytes.count ? value : nil
    }

    private mutating func parseValue(depth: Int) -> JWT.Value? {
        guard depth < JSONParser.maximumDepth else { return nil }
        skipWhitespace()
        guard position < bytes.count else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "{"): return parseObject(depth: depth)
        case UInt8(ascii: "["): return parseArray(depth: depth)
        case UInt8(ascii: "\""): return parseString().map(JWT.Value.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return parseNumber()
        }
    }

    private mutating func parseObject(depth: Int) -> JWT.Value? {
        position += 1
        var members: [String: JWT.Value] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return .object(members) }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = parseString() else { return nil }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")), let value = parseValue(depth: depth + 1) else { return nil }
            // Duplicate names are ambiguous (RFC 7515 §5.2 allows rejecting them): reject.
            guard members.updateValue(value, forKey: key) == nil else { return nil }
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return .object(members) }
            guard consume(UInt8(ascii: ",")) else { return nil }
        }
    }

    private mutating func parseArray(depth: Int) -> JWT.Value? {
        position += 1
        var elements: [JWT.Value] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return .array(elements) }
        while true {
            guard let element = parseValue(depth: depth + 1) else { return nil }
            elements.append(element)
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return .array(elements) }
            guard consume(UInt8(ascii: ",")) else { return nil }
        }
    }

    private mutating func parseString() -> String? {
        position += 1
        var out: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { return nil }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard var scalar = parseHex4() else { return nil }
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), let low = parseHex4(),
                              (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { return nil }
                    out += Array(String(Character(unicode)).utf8)
                default: return nil
                }
            case 0..<0x20:
                return nil
            default:
                out.append(byte)
            }
        }
        return nil
    }

    private mutating func parseHex4() -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            guard let digit = hexDigit(byte) else { return nil }
            value = value << 4 | digit
        }
        position += 4
        return value
    }

    private func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    private mutating func parseNumber() -> JWT.Value? {
        let start = position
        var integral = true
        _ = consume(UInt8(ascii: "-"))
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        if consume(UInt8(ascii: ".")) {
            integral = false
            guard digits() > 0 else { return nil }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            integral = false
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard digits() > 0 else { return nil }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if integral, let integer = Int64(text) { return .integer(integer) }
        return Double(text).map(JWT.Value.number)
    }

    private mutating func digits() -> Int {
        let start = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
        return position - start
    }

    private mutating func literal(_ word: String, _ value: JWT.Value) -> JWT.Value? {
        let utf8 = Array(word.utf8)
        guard position + utf8.count <= bytes.count, Array(bytes[position..<position + utf8.count]) == utf8 else { return nil }
        position += utf8.count
        return value
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }
}
