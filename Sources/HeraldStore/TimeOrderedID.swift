import Foundation
import Synchronization

/// New record ids that sort in the order they were made: UUIDs version 7 (RFC 9562) in lowercase canonical
/// form. Their first 48 bits are the Unix time in milliseconds and the next 12 a counter within the
/// millisecond (RFC 9562 §6.2, method 1), so ids made later sort later, across threads too: a new row's id,
/// and every index that starts with it (a push's deliveries are indexed by push id first), goes to the end
/// of its index instead of a random page of it. Random ids wrote all over their indexes: a large import's
/// installations, and each new push's deliveries into the middle of the deliveries' push index, whose
/// pages then split in half. The other 62 bits are random (`RandomPool`, the system's generator), so ids
/// stay unguessable within a millisecond.
///
/// Both stores receive ids made here (the services pass them in); nothing parses an id or relies on its
/// version: it stays an opaque string to clients.
public enum TimeOrderedID {
    /// The next id: after every id this process made before, whatever `now` says.
    public static func next(now: Date = Date()) -> String {
        let stamp = TimeOrderedStamp.next(milliseconds: UInt64(max(0, now.timeIntervalSince1970 * 1000)))
        // The 128 bits as two words: unix_ts_ms (48), version 7 (4), the counter (12); variant 10 (2), random (62).
        let high = (stamp >> 12) << 16 | 0x7000 | (stamp & 0x0FFF)
        let low = 0x8000_0000_0000_0000 | (RandomPool.next() & 0x3FFF_FFFF_FFFF_FFFF)
        // Written straight into the string's storage: built through byte arrays, an id took 2,700
        // instructions of a registration.
        return String(unsafeUninitializedCapacity: 36) { out in
            var i = 0
            func hex(_ word: UInt64, digits: ClosedRange<Int>) {
                for d in digits {
                    if i == 8 || i == 13 || i == 18 || i == 23 { out[i] = UInt8(ascii: "-"); i += 1 }
                    let nibble = UInt8(truncatingIfNeeded: word >> (4 * (15 - d))) & 0x0F
                    out[i] = nibble < 10 ? nibble + UInt8(ascii: "0") : nibble - 10 + UInt8(ascii: "a")
                    i += 1
                }
            }
            hex(high, digits: 0...15)
            hex(low, digits: 0...15)
            return 36
        }
    }
}

/// The last (milliseconds << 12 | counter) handed out, process-wide: each id takes the larger of the clock
/// and the last value plus one, so ids never go backwards, even if the clock does or 4,096 are made in one
/// millisecond (the timestamp then runs a little ahead, as RFC 9562 §6.2 allows).
private enum TimeOrderedStamp {
    private static let last = Atomic<UInt64>(0)

    static func next(milliseconds: UInt64) -> UInt64 {
        let floor = (milliseconds & 0xFFFF_FFFF_FFFF) << 12
        var current = last.load(ordering: .relaxed)
        while true {
            let candidate = max(floor, current &+ 1)
            let (exchanged, original) = last.compareExchange(expected: current, desired: candidate, ordering: .relaxed)
            if exchanged { return candidate }
            current = original
        }
    }
}
