import Foundation
import Synchronization

extension UUID {
    /// A version-4 UUID for identifiers that need to be unique, not secret (an apns-id APNs did not
    /// send back). Foundation's `UUID()` and `SystemRandomNumberGenerator` make a system call per value,
    /// which shows when minting one per notification; this is a wyrand stream seeded once from the system.
    public static func random() -> UUID {
        let a = FastRandom.next(), b = FastRandom.next()
        var t = (UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0),
                 UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0))
        withUnsafeMutableBytes(of: &t) { raw in
            raw.storeBytes(of: a, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: b, toByteOffset: 8, as: UInt64.self)
            raw[6] = (raw[6] & 0x0F) | 0x40
            raw[8] = (raw[8] & 0x3F) | 0x80
        }
        return UUID(uuid: t)
    }
}

/// wyrand over an atomic counter: lock-free, fast, statistically good; not for secrets.
enum FastRandom {
    private static let state = Atomic<UInt64>({ var g = SystemRandomNumberGenerator(); return g.next() }())

    static func next() -> UInt64 {
        let s = state.wrappingAdd(0xa0761d6478bd642f, ordering: .relaxed).newValue
        let m = s.multipliedFullWidth(by: s ^ 0xe7037ed1a0b428db)
        return m.high ^ m.low
    }
}
