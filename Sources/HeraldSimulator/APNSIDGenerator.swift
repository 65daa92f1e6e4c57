import APNSCore
import Foundation
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

    /// `high` then `low`, big-endian, as a canonical lowercase UUID.
    static func format(_ high: UInt64, _ low: UInt64) -> String {
        var bytes = uuid_t(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return UUID(uuid: bytes).lowercasedString
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
