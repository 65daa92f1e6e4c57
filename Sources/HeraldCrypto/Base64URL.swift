/// Base64 for JWTs and tokens, without Foundation on the hot path.
public enum Base64URL {
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Decoding table accepting both alphabets: 0xFF marks an invalid byte.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in urlAlphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        for (index, byte) in standardAlphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// base64url without padding (RFC 4648 §5), as JWS requires.
    public static func encode<B: Collection>(_ bytes: B) -> String where B.Element == UInt8 {
        encode(bytes, alphabet: urlAlphabet, padded: false)
    }

    /// Standard base64 with `=` padding (RFC 4648 §4), what PHP's `base64_encode` produces.
    public static func encodeStandard<B: Collection>(_ bytes: B) -> String where B.Element == UInt8 {
        encode(bytes, alphabet: standardAlphabet, padded: true)
    }

    /// Decodes base64url or standard base64, padded or not (even mixed: APNs accepted PHP-built tokens).
    /// Nil for any other character, misplaced padding, or an impossible length.
    public static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        var utf8 = Array(text.utf8)
        var padding = 0
        while utf8.last == UInt8(ascii: "=") {
            utf8.removeLast()
            padding += 1
        }
        guard padding <= 2, utf8.count % 4 != 1 else { return nil }
        if padding > 0, (utf8.count + padding) % 4 != 0 { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in utf8 {
            let value = decodeTable[Int(byte)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero, or two encodings would decode to the same bytes.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }

    private static func encode<B: Collection>(_ bytes: B, alphabet: [UInt8], padded: Bool) -> String where B.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let chunk = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            out.append(alphabet[Int(chunk >> 18 & 0x3f)])
            out.append(alphabet[Int(chunk >> 12 & 0x3f)])
            if second != nil { out.append(alphabet[Int(chunk >> 6 & 0x3f)]) } else if padded { out.append(UInt8(ascii: "=")) }
            if third != nil { out.append(alphabet[Int(chunk & 0x3f)]) } else if padded { out.append(UInt8(ascii: "=")) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
