/// A JSON syntax check (RFC 8259) that builds nothing: the provider hot path only needs to know that a
/// body is a JSON object, and parsing into values (allocating every key and string) cost more than the
/// rest of validation together. Payloads that set a badge are parsed properly afterwards.
enum JSONSyntax {
    static let maximumDepth = 64

    /// True if `bytes` is exactly one JSON object (surrounding whitespace allowed) in valid UTF-8.
    static func isObject(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = Scanner(bytes: buffer)
            scanner.skipWhitespace()
            guard scanner.peek == UInt8(ascii: "{"), scanner.value(depth: 0) else { return false }
            scanner.skipWhitespace()
            guard scanner.index == buffer.count else { return false }
            return !scanner.sawNonASCII || String(validating: buffer, as: UTF8.self) != nil
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var sawNonASCII = false

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
                index += 1
            }
        }

        mutating func value(depth: Int) -> Bool {
            guard depth < JSONSyntax.maximumDepth, let c = peek else { return false }
            switch c {
            case UInt8(ascii: "{"): return object(depth: depth + 1)
            case UInt8(ascii: "["): return array(depth: depth + 1)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        mutating func object(depth: Int) -> Bool {
            index += 1
            skipWhitespace()
            if peek == UInt8(ascii: "}") { index += 1; return true }
            while true {
                skipWhitespace()
                guard peek == UInt8(ascii: "\""), string() else { return false }
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { return false }
                index += 1
                skipWhitespace()
                guard value(depth: depth) else { return false }
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"): index += 1; return true
                default: return false
                }
            }
        }

        mutating func array(depth: Int) -> Bool {
            index += 1
            skipWhitespace()
            if peek == UInt8(ascii: "]") { index += 1; return true }
            while true {
                skipWhitespace()
                guard value(depth: depth) else { return false }
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"): index += 1; return true
                default: return false
                }
            }
        }

        mutating func string() -> Bool {
            index += 1
            while index < bytes.count {
                let c = bytes[index]
                index += 1
                switch c {
                case UInt8(ascii: "\""): return true
                case UInt8(ascii: "\\"):
                    guard let e = peek else { return false }
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        continue
                    case UInt8(ascii: "u"):
                        guard index + 4 <= bytes.count, (index..<index + 4).allSatisfy({ Self.isHex(bytes[$0]) }) else { return false }
                        index += 4
                    default: return false
                    }
                case 0..<0x20: return false
                case 0x80...: sawNonASCII = true
                default: continue
                }
            }
            return false
        }

        mutating func number() -> Bool {
            if peek == UInt8(ascii: "-") { index += 1 }
            guard let first = peek, Self.isDigit(first) else { return false }
            index += 1
            if first != UInt8(ascii: "0") { skipDigits() }
            if peek == UInt8(ascii: ".") {
                index += 1
                guard let d = peek, Self.isDigit(d) else { return false }
                skipDigits()
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard let d = peek, Self.isDigit(d) else { return false }
                skipDigits()
            }
            return true
        }

        mutating func skipDigits() {
            while let c = peek, Self.isDigit(c) { index += 1 }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for i in 0..<count where bytes[index + i] != word.utf8Start[i] { return false }
            index += count
            return true
        }

        static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        static func isHex(_ c: UInt8) -> Bool { isDigit(c) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x66) }
    }
}
