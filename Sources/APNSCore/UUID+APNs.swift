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

extension UUID {
    /// Parses the canonical 8-4-4-4-12 form (either case) without Foundation's `sscanf`-based parser,
    /// which shows up when every APNs answer carries an apns-id.
    public init?(canonical text: some StringProtocol) {
        var bytes = (UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0),
                     UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0))
        let ok = text.utf8.withContiguousStorageIfAvailable { Self.parse($0, into: &bytes) }
            ?? Self.parse(Array(text.utf8), into: &bytes)
        guard ok else { return nil }
        self.init(uuid: bytes)
    }

    private static func parse<C: Collection>(_ s: C, into out: inout uuid_t) -> Bool where C.Element == UInt8 {
        guard s.count == 36 else { return false }
        return withUnsafeMutableBytes(of: &out) { raw -> Bool in
            var byte = 0, high: UInt8? = nil
            for (i, c) in s.enumerated() {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard c == UInt8(ascii: "-") else { return false }
                    continue
                }
                let v: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
                default: return false
                }
                if let h = high {
                    raw[byte] = h << 4 | v
                    byte += 1
                    high = nil
                } else {
                    high = v
                }
            }
            return byte == 16
        }
    }
}

extension UUID {
    /// The canonical 8-4-4-4-12 form in lowercase, as `apns-id` carries it, formatted straight from the
    /// bytes (Foundation's `uuidString.lowercased()` builds two strings; this runs per notification of a
    /// fan-out): two digits per byte from a table.
    public var lowercasedString: String {
        let pairs = Self.hexPairs  // once: a static read inside the loop costs a swift_once per byte
        return withUnsafeBytes(of: uuid) { bytes in
            pairs.withUnsafeBufferPointer { pairs in
                String(unsafeUninitializedCapacity: 36) { out in
                    let raw = UnsafeMutableRawBufferPointer(out)
                    var at = 0
                    for index in 0..<16 {
                        if index == 4 || index == 6 || index == 8 || index == 10 {
                            raw[at] = UInt8(ascii: "-")
                            at += 1
                        }
                        raw.storeBytes(of: pairs[Int(bytes[index])], toByteOffset: at, as: UInt16.self)
                        at += 2
                    }
                    return 36
                }
            }
        }
    }

    /// Each byte's two lowercase hex digits, in memory order.
    private static let hexPairs: [UInt16] = (0...255).map { byte in
        let digits = Array("0123456789abcdef".utf8)
        var pair: UInt16 = 0
        withUnsafeMutableBytes(of: &pair) { $0[0] = digits[byte >> 4]; $0[1] = digits[byte & 0x0F] }
        return pair
    }
}
