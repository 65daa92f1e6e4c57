import Synchronization

/// Cheap unique `apns-id`s: a random 64-bit prefix chosen once plus an atomic counter, formatted as a
/// canonical lowercase UUID (version 4 and variant bits set), with no allocation beyond the string.
final class APNSIDGenerator: Sendable {
    private let prefix: UInt64
    private let counter = Atomic<UInt64>(0)

    init() {
        prefix = (UInt64.random(in: 0...UInt64.max) & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
    }

    func next() -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        let low = (n & 0x0FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return Self.format(prefix, low)
    }

    /// Two hex digits per byte value, so formatting takes 16 table reads rather than 32 nibble steps.
    private static let pairs: [UInt16] = (0..<256).map { byte in
        let digits = Array("0123456789abcdef".utf8)
        return UInt16(digits[byte >> 4]) | UInt16(digits[byte & 0xF]) << 8
    }

    static func format(_ high: UInt64, _ low: UInt64) -> String {
        let pairs = Self.pairs  // once: a static read inside the loop costs a swift_once each time
        return String(unsafeUninitializedCapacity: 36) { out in
            pairs.withUnsafeBufferPointer { table in
                var i = 0
                for byteIndex in 0..<16 {
                    if byteIndex == 4 || byteIndex == 6 || byteIndex == 8 || byteIndex == 10 {
                        out[i] = UInt8(ascii: "-")
                        i += 1
                    }
                    let word = byteIndex < 8 ? high : low
                    let pair = table[Int((word >> UInt64(56 - (byteIndex % 8) * 8)) & 0xFF)]
                    out[i] = UInt8(truncatingIfNeeded: pair)
                    out[i + 1] = UInt8(truncatingIfNeeded: pair >> 8)
                    i += 2
                }
            }
            return 36
        }
    }

    /// 8-4-4-4-12 hexadecimal digits (either case), as `apns-id` must be.
    static func isCanonicalUUID(_ s: String) -> Bool {
        let u = s.utf8
        guard u.count == 36 else { return false }
        for (i, c) in u.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if c != UInt8(ascii: "-") { return false }
            } else if !((c >= 0x30 && c <= 0x39) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x66)) {
                return false
            }
        }
        return true
    }
}
