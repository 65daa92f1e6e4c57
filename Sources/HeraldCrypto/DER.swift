/// The little ASN.1 DER that Herald writes and reads itself (APNs certificate extension values).
enum DER {
    static let sequenceTag: UInt8 = 0x30
    static let utf8StringTag: UInt8 = 0x0C
    static let null: [UInt8] = [0x05, 0x00]

    static func encode(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var out = [tag]
        if content.count < 0x80 {
            out.append(UInt8(content.count))
        } else {
            var length = content.count
            var lengthBytes: [UInt8] = []
            while length > 0 {
                lengthBytes.insert(UInt8(length & 0xff), at: 0)
                length >>= 8
            }
            out.append(0x80 | UInt8(lengthBytes.count))
            out += lengthBytes
        }
        return out + content
    }

    static func utf8String(_ string: String) -> [UInt8] { encode(tag: utf8StringTag, Array(string.utf8)) }

    static func sequence(_ elements: [[UInt8]]) -> [UInt8] { encode(tag: sequenceTag, elements.flatMap { $0 }) }

    /// Reads consecutive TLV elements; nil from `next()` at the end, or when the encoding is broken
    /// (`failed` tells which).
    struct Reader {
        private let bytes: [UInt8]
        private var position: Int
        private let end: Int
        private(set) var failed = false

        init(_ bytes: [UInt8]) {
            self.init(bytes, from: 0, to: bytes.count)
        }

        private init(_ bytes: [UInt8], from start: Int, to end: Int) {
            self.bytes = bytes
            self.position = start
            self.end = end
        }

        var isAtEnd: Bool { position >= end }

        /// The next element's tag and a reader over its content.
        mutating func next() -> (tag: UInt8, content: Reader)? {
            guard position + 2 <= end else {
                if position != end { failed = true }
                return nil
            }
            let tag = bytes[position]
            var length = Int(bytes[position + 1])
            var cursor = position + 2
            if length & 0x80 != 0 {
                let count = length & 0x7f
                guard count >= 1, count <= 4, cursor + count <= end else { failed = true; return nil }
                length = 0
                for byte in bytes[cursor..<cursor + count] { length = length << 8 | Int(byte) }
                cursor += count
            }
            guard length <= end - cursor else { failed = true; return nil }
            position = cursor + length
            return (tag, Reader(bytes, from: cursor, to: cursor + length))
        }

        /// The remaining content bytes.
        var remaining: [UInt8] { Array(bytes[position..<end]) }
    }
}
