/// Why a byte sequence is not JSON, and where.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset (0-based) at which the problem was found.
    public var offset: Int
    /// What is wrong at that offset.
    public var problem: String

    public var description: String {
        "invalid JSON at byte \(offset): \(problem)"
    }
}

/// What a parse accepts beyond RFC 8259's grammar.
public struct JSONParsingOptions: Sendable {
    /// Deepest array/object nesting accepted, so hostile input cannot exhaust the stack.
    public var maximumDepth: Int
    /// Refuse an object that names a key twice, instead of keeping the last value. Security tokens (JWTs)
    /// want this: two readers of one token must not see different claims.
    public var rejectsDuplicateKeys: Bool

    public init(maximumDepth: Int = JSONParser.maximumDepth, rejectsDuplicateKeys: Bool = false) {
        self.maximumDepth = maximumDepth
        self.rejectsDuplicateKeys = rejectsDuplicateKeys
    }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259). Objects keep their member order; a repeated key keeps its
    /// first position and its last value (unless `options` refuse it). Integers that fit `Int` stay
    /// integers. Nesting is limited (``JSONParser/maximumDepth`` levels by default).
    public init(parsing bytes: some Collection<UInt8>, options: JSONParsingOptions = JSONParsingOptions()) throws(JSONParseError) {
        let result: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
            var parser = JSONParser(buffer, options: options)
            return Result { () throws(JSONParseError) in try parser.parseDocument() }
        }
        let parsed = result ?? Array(bytes).withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer, options: options)
            return Result { () throws(JSONParseError) in try parser.parseDocument() }
        }
        self = try parsed.get()
    }

    /// Parses JSON text held in a string.
    public init(parsing text: String, options: JSONParsingOptions = JSONParsingOptions()) throws(JSONParseError) {
        try self.init(parsing: Array(text.utf8), options: options)
    }
}

/// A strict recursive-descent JSON parser over a byte buffer.
public struct JSONParser {
    /// Deepest array/object nesting accepted by default.
    public static let maximumDepth = 256
    /// Objects with this many members get a hash index for duplicate-key detection.
    static let indexThreshold = 16

    private let input: UnsafeBufferPointer<UInt8>
    private let options: JSONParsingOptions
    private var position = 0
    private var depth = 0

    init(_ input: UnsafeBufferPointer<UInt8>, options: JSONParsingOptions) {
        self.input = input
        self.options = options
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if position < input.count {
            throw fail("unexpected \(describe(input[position])) after the end of the JSON value")
        }
        return value
    }

    // MARK: Values

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard position < input.count else { throw fail("unexpected end of input, expected a value") }
        switch input[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case let byte: throw fail("unexpected \(describe(byte)), expected a value")
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        position += 1  // {
        var object = JSONObject()
        var index: [String: Int]?
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else {
                throw fail("expected a string key, found \(describeNext())")
            }
            let key = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else {
                throw fail("expected ':' after key \"\(key)\", found \(describeNext())")
            }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            // Repeated keys are looked up linearly in small objects; large ones get an index so
            // a hostile document with thousands of keys stays linear.
            if object.count >= Self.indexThreshold && index == nil {
                index = Dictionary(object.keys.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            }
            if index != nil {
                if let existing = index?[key] {
                    if options.rejectsDuplicateKeys { throw fail("key \"\(key)\" appears twice in one object") }
                    object.replaceValue(at: existing, with: value)
                } else {
                    index?[key] = object.count
                    object.appendUnchecked(key, value)
                }
            } else if let existing = object.keys.firstIndex(of: key) {
                if options.rejectsDuplicateKeys { throw fail("key \"\(key)\" appears twice in one object") }
                object.replaceValue(at: existing, with: value)
            } else {
                object.appendUnchecked(key, value)
            }
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return .object(object)
            default:
                throw fail("expected ',' or '}' after the value of \"\(key)\", found \(describeNext())")
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        position += 1  // [
        var array: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(array)
        }
        while true {
            skipWhitespace()
            array.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return .array(array)
            default:
                throw fail("expected ',' or ']' in array, found \(describeNext())")
            }
        }
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > options.maximumDepth {
            throw fail("nesting deeper than \(options.maximumDepth) levels")
        }
    }

    // MARK: Strings

    private mutating func parseString() throws(JSONParseError) -> String {
        let start = position
        position += 1  // opening quote
        let contentStart = position
        // Fast path: no escapes, so the bytes between the quotes are the string.
        var highBits: UInt8 = 0
        while position < input.count {
            let byte = input[position]
            highBits |= byte
            if byte == UInt8(ascii: "\"") {
                let content = UnsafeBufferPointer(rebasing: input[contentStart..<position])
                position += 1
                // ASCII is valid UTF-8 as it is: most strings (keys, tokens, ids) skip the validation, whose
                // generic code looked up type metadata per string (5% of an import's parsing).
                if highBits < 0x80 { return String(decoding: content, as: UTF8.self) }
                return try makeString(content, startingAt: contentStart)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("unescaped control character \(describe(byte)) in string") }
            position += 1
        }
        guard position < input.count else {
            position = start
            throw fail("unterminated string")
        }
        var decoded = Array(UnsafeBufferPointer(rebasing: input[contentStart..<position]))
        while position < input.count {
            let byte = input[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return try decoded.withUnsafeBufferPointer { buffer throws(JSONParseError) in
                    try makeString(buffer, startingAt: contentStart)
                }
            case UInt8(ascii: "\\"):
                try parseEscape(into: &decoded)
            case 0..<0x20:
                throw fail("unescaped control character \(describe(byte)) in string")
            default:
                decoded.append(byte)
                position += 1
            }
        }
        position = start
        throw fail("unterminated string")
    }

    private mutating func parseEscape(into decoded: inout [UInt8]) throws(JSONParseError) {
        position += 1  // backslash
        guard position < input.count else { throw fail("unterminated escape sequence") }
        let byte = input[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): decoded.append(0x22)
        case UInt8(ascii: "\\"): decoded.append(0x5C)
        case UInt8(ascii: "/"): decoded.append(0x2F)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard position + 1 < input.count, input[position] == UInt8(ascii: "\\"),
                    input[position + 1] == UInt8(ascii: "u")
                else { throw fail("unpaired UTF-16 surrogate \\u\(hex(scalar))") }
                position += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw fail("unpaired UTF-16 surrogate \\u\(hex(scalar))")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw fail("unpaired UTF-16 surrogate \\u\(hex(scalar))")
            }
            // Valid by construction: surrogates were excluded above.
            let unicodeScalar = Unicode.Scalar(scalar)!
            decoded.append(contentsOf: UTF8.encode(unicodeScalar)!)
        default:
            position -= 1
            throw fail("invalid escape \\\(String(UnicodeScalar(byte)))")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= input.count else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = input[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid hex digit \(describe(byte)) in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private func makeString(_ utf8: UnsafeBufferPointer<UInt8>, startingAt offset: Int) throws(JSONParseError) -> String {
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw JSONParseError(offset: offset, problem: "string is not valid UTF-8")
        }
        return string
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        var isInteger = true
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), isDigit(first) else {
            throw fail("expected a digit after '-', found \(describeNext())")
        }
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = peek(), isDigit(next) { throw fail("leading zero in number") }
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard let next = peek(), isDigit(next) else {
                throw fail("expected a digit after '.', found \(describeNext())")
            }
            skipDigits()
        }
        if let marker = peek(), marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { position += 1 }
            guard let next = peek(), isDigit(next) else {
                throw fail("expected a digit in the exponent, found \(describeNext())")
            }
            skipDigits()
        }
        let text = UnsafeBufferPointer(rebasing: input[start..<position])
        if isInteger, let integer = parseInt(text) {
            return .int(integer)
        }
        // Double turns a magnitude past its range (`1e999`) into infinity rather than failing, and
        // JSON has no way to write infinity back (the writer makes it `null`).
        guard let double = Double(String(decoding: text, as: UTF8.self)), double.isFinite else {
            position = start
            throw fail("number out of range")
        }
        return .double(double)
    }

    /// The integer value, or nil when it does not fit `Int` (it then becomes a double).
    private func parseInt(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        let negative = text[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        var value = 0
        while index < text.count {
            let digit = Int(text[index] - UInt8(ascii: "0"))
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
            index += 1
        }
        return value
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { position += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    // MARK: Helpers

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        guard position + count <= input.count,
            UnsafeBufferPointer(rebasing: input[position..<position + count]).elementsEqual(expected)
        else { throw fail("invalid literal, expected \(literal)") }
        position += count
    }

    private func peek() -> UInt8? {
        position < input.count ? input[position] : nil
    }

    private mutating func skipWhitespace() {
        while position < input.count {
            switch input[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func fail(_ problem: String) -> JSONParseError {
        JSONParseError(offset: position, problem: problem)
    }

    private func describeNext() -> String {
        guard let byte = peek() else { return "end of input" }
        return describe(byte)
    }

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
        return "byte 0x\(hex(UInt32(byte), width: 2))"
    }

    private func hex(_ value: UInt32, width: Int = 4) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
