import Dispatch
import Synchronization
import Testing
@testable import HeraldStore

/// `GroupCommit`'s serial lane on a queue of its own, with a store that only records its transactions: which
/// writes each one ran, in order.
@Suite struct GroupCommitTests {
    /// What the fake store's transactions ran, one array of write values per transaction.
    final class Transactions: Sendable {
        let ran = Mutex<[[Int]]>([])
    }

    /// A group commit whose "transaction" runs each write (its body returns the value it records) and, like
    /// SQLite's, the writes that arrive before it commits.
    static func makeGroupCommit(maxBatch: Int, _ transactions: Transactions) -> GroupCommit<Transactions> {
        let queue = DispatchQueue(label: "group-commit-test")
        return GroupCommit(maxBatch: maxBatch, serial: { queue.async(execute: $0) }, perform: { batch, arrivals in
            var pending = batch
            transactions.ran.withLock { $0.append([]) }
            while !pending.isEmpty {
                for write in pending { try? write.run(transactions) }
                pending = arrivals()
            }
            return nil
        })
    }

    /// Starts `count` writes whose values are `first..<first+count`, each recording its value in the open
    /// transaction; returns their tasks.
    static func startWrites(_ values: Range<Int>, _ group: GroupCommit<Transactions>,
                            before body: @escaping @Sendable () -> Void = {}) -> [Task<Int, Error>] {
        values.map { value in
            Task {
                try await group.write { transactions in
                    body()
                    transactions.ran.withLock { $0[$0.count - 1].append(value) }
                    return value
                }
            }
        }
    }

    static func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<2_000 where !condition() { try await Task.sleep(for: .milliseconds(1)) }
        #expect(condition())
    }

    /// Write 0 holds its transaction open until writes 1-9 are waiting; returns the values the ten writes
    /// were answered with, in order, and what each transaction ran.
    static func burstDuringTheFirstTransaction(maxBatch: Int) async throws -> (answered: [Int], transactions: [[Int]]) {
        let transactions = Transactions()
        let group = makeGroupCommit(maxBatch: maxBatch, transactions)
        let release = DispatchSemaphore(value: 0)
        let first = startWrites(0..<1, group, before: { release.wait() })
        try await waitUntil { transactions.ran.withLock { !$0.isEmpty } }
        let rest = startWrites(1..<10, group)
        try await waitUntil { group.waitingCount == 9 }
        release.signal()
        var answered: [Int] = []
        for write in first + rest { answered.append(try await write.value) }
        return (answered, transactions.ran.withLock { $0 })
    }

    @Test func writesThatArriveWhileATransactionRunsJoinItBeforeItCommits() async throws {
        let (answered, ran) = try await Self.burstDuringTheFirstTransaction(maxBatch: 256)
        #expect(answered == Array(0..<10))
        #expect(ran.count == 1, "one transaction, not a second one for the writes that came in during the first")
        #expect(ran.first?.first == 0 && Set(ran.first ?? []) == Set(0..<10))
    }

    @Test func aTransactionTakesNoMoreThanMaxBatchWrites() async throws {
        let (_, ran) = try await Self.burstDuringTheFirstTransaction(maxBatch: 4)
        #expect(ran.map(\.count) == [4, 4, 2])
    }

    /// PostgreSQL's registrations run a few group transactions at once (each holds a connection): never
    /// more than `lanes`, and every write is answered.
    @Test func anAsyncGroupRunsUpToItsLanesTransactionsAtOnce() async throws {
        let transactions = Transactions()
        let inFlight = Mutex((now: 0, most: 0))
        let group = GroupCommit<Transactions>(maxBatch: 1, lanes: 2) { batch in
            inFlight.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            // Holds its transaction until another one runs beside it (at most half a second): with one lane
            // none ever would.
            for _ in 0..<500 where inFlight.withLock({ $0.now }) < 2 { try? await Task.sleep(for: .milliseconds(1)) }
            transactions.ran.withLock { $0.append([]) }
            for write in batch { try? write.run(transactions) }
            try? await Task.sleep(for: .milliseconds(5))
            inFlight.withLock { $0.now -= 1 }
            return nil
        }
        let writes = (0..<6).map { value in
            Task { try await group.write { _ in value } }
        }
        var answered: [Int] = []
        for write in writes { answered.append(try await write.value) }
        #expect(answered == Array(0..<6))
        #expect(inFlight.withLock { $0.most } == 2)
        #expect(transactions.ran.withLock { $0.count } == 6)
    }

    @Test func aLoneWriteCommitsAtOnceAndTheLaneIsFreeAfterwards() async throws {
        let transactions = Transactions()
        let group = Self.makeGroupCommit(maxBatch: 256, transactions)
        #expect(try await Self.startWrites(7..<8, group)[0].value == 7)
        #expect(try await Self.startWrites(8..<9, group)[0].value == 8)
        #expect(transactions.ran.withLock { $0 } == [[7], [8]])
    }
}
