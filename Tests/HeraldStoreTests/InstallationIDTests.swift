import Foundation
import Testing
@testable import HeraldStore

/// New installation ids are UUIDs version 7 (RFC 9562): valid canonical UUIDs whose order is the order
/// they were made in, so new rows append to the stores' id indexes.
@Suite struct InstallationIDTests {
    @Test func idsAreCanonicalVersion7UUIDsCarryingTheirTime() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000.123)
        let id = InstallationRecord.newID(now: now)
        let uuid = try #require(UUID(uuidString: id))
        #expect(uuid.uuidString.lowercased() == id, "lowercase canonical form")
        let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        #expect(bytes[6] >> 4 == 7, "version 7")
        #expect(bytes[8] >> 6 == 0b10, "RFC 9562 variant")
        let milliseconds = bytes[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // Another test may have made ids later than `now` (the process-wide sequence never goes back).
        #expect(milliseconds >= 1_800_000_000_123)
    }

    @Test func idsSortInTheOrderTheyWereMadeEvenWithinAMillisecondOrWhenTheClockGoesBack() {
        let base = Date()
        var ids: [String] = []
        for i in 0..<10_000 {
            // 10,000 ids in a few milliseconds (past the 4,096 a millisecond's counter holds), the clock
            // stepping back now and then.
            ids.append(InstallationRecord.newID(now: base.addingTimeInterval(i % 1000 == 999 ? -5 : Double(i / 5_000) / 1000)))
        }
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
    }

    @Test func idsMadeOnManyThreadsAreUniqueAndEachThreadsAscend() async {
        let perTask = 5_000
        let lists = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 { group.addTask { (0..<perTask).map { _ in InstallationRecord.newID() } } }
            var all: [[String]] = []
            for await list in group { all.append(list) }
            return all
        }
        for list in lists { #expect(list == list.sorted()) }
        #expect(Set(lists.joined()).count == 8 * perTask)
    }

    /// The random part comes from a pool read from the system 4 KiB (512 values) at a time: drawn on many
    /// threads at once and across many refills, no value comes twice (64 random bits: a repeat among 16,000
    /// would be a broken pool, not chance), and the bits are not stuck.
    @Test func randomBitsFromThePoolNeverRepeatAcrossRefillsAndThreads() async {
        let draws = await withTaskGroup(of: [UInt64].self) { group in
            for _ in 0..<8 { group.addTask { (0..<2_000).map { _ in RandomPool.next() } } }
            var all: [UInt64] = []
            for await list in group { all += list }
            return all
        }
        #expect(Set(draws).count == draws.count)
        #expect(draws.reduce(0, |) == UInt64.max && draws.reduce(UInt64.max, &) == 0, "every bit is sometimes set, sometimes not")
    }
}
