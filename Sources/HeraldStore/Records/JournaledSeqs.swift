/// The seqs of one delivery-journal entry, as stored (`HeraldStorage.journalAccepted`): ascending and
/// distinct, the first as a LEB128 varint and each next one as its distance from the previous. A page's
/// members are mostly consecutive registrations, so most seqs take one byte instead of eight.
public enum JournaledSeqs {
    public static func encode(_ ascending: [Int64]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(ascending.count + 8)
        var previous: Int64 = 0
        for seq in ascending {
            var value = UInt64(bitPattern: seq &- previous)
            previous = seq
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }
        return bytes
    }

    /// The seqs of `bytes`; a truncated last varint is dropped.
    public static func decode(_ bytes: [UInt8]) -> [Int64] {
        var seqs: [Int64] = []
        var value: UInt64 = 0, shift: UInt64 = 0, previous: Int64 = 0
        for byte in bytes {
            if shift < 64 { value |= UInt64(byte & 0x7F) << shift }
            if byte & 0x80 != 0 { shift += 7; continue }
            previous = previous &+ Int64(bitPattern: value)
            seqs.append(previous)
            value = 0; shift = 0
        }
        return seqs
    }
}

extension JournaledSeqs {
    /// What a journal entry stores of `seqs`: those beyond `cursor`, ascending and distinct, with the first
    /// and last (by which entries are found and dropped). Nil when none is beyond the cursor.
    public static func entry(_ seqs: [Int64], beyond cursor: Int64) -> (first: Int64, last: Int64, bytes: [UInt8])? {
        var kept = seqs.filter { $0 > cursor }
        guard !kept.isEmpty else { return nil }
        kept.sort()
        var distinct: [Int64] = []
        distinct.reserveCapacity(kept.count)
        for seq in kept where seq != distinct.last { distinct.append(seq) }
        return (distinct[0], distinct[distinct.count - 1], encode(distinct))
    }

    /// The seqs in (`after`, `through`] of several entries, ascending and distinct.
    public static func merged(_ entries: [[UInt8]], after: Int64, through: Int64) -> [Int64] {
        var all: [Int64] = []
        for bytes in entries { all += decode(bytes).filter { $0 > after && $0 <= through } }
        all.sort()
        var distinct: [Int64] = []
        distinct.reserveCapacity(all.count)
        for seq in all where seq != distinct.last { distinct.append(seq) }
        return distinct
    }
}
