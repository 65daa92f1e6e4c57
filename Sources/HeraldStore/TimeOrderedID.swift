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
        let low = RandomPool.next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: stamp >> (12 + 8 * (5 - i))) }   // unix_ts_ms
        bytes[6] = 0x70 | UInt8(truncatingIfNeeded: (stamp >> 8) & 0x0F)                        // ver 7, counter
        bytes[7] = UInt8(truncatingIfNeeded: stamp)
        for i in 8..<16 { bytes[i] = UInt8(truncatingIfNeeded: low >> (8 * (15 - i))) }
        bytes[8] = 0x80 | (bytes[8] & 0x3F)                                                      // variant 10
        let hex = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
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
