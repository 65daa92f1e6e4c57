import Foundation
import Testing
@testable import HeraldStore
@testable import HeraldPostgres

/// On PostgreSQL a delivery-journal commit must not wait for the page write under way for the same push:
/// the journal exists so that a crash re-sends only what was on the wire, and a journal that queues behind
/// each page write lags by a page. Its rows reference the push, and a foreign key's check takes the push
/// row `FOR KEY SHARE`, which a page write's `FOR UPDATE` blocked; it holds the row `FOR NO KEY UPDATE` now.
@Suite(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
struct PostgresJournalLockTests {
    @Test func aJournalCommitDoesNotWaitForAPageBeingWritten() async throws {
        let url = try await TestPostgres.freshDatabase()
        let store = try await PostgresStore(url: url, poolSize: 2, node: "node-a")
        try await makeApp(store)
        let installation = try await register(store, iid: "i-1", token: "t1")
        _ = try await store.insertPush(PushRecord(id: "p1", appID: "app1", idempotencyKey: nil, request: "{}", status: .queued,
                                                  createdAt: t0, sendAt: nil, expiresAt: nil), idempotentSince: t0)
        #expect(try await store.claimFanOuts(limit: 1, now: t0) == ["p1"])

        // A page write under way: a transaction holding the push row as `fanOut` and `recordPage` hold it.
        let writer = try #require(store.database.lendIdle())
        try writer.run { db in
            try db.executeScript("BEGIN")
            _ = try db.execute("SELECT id FROM pushes WHERE id = $1 \(PostgresStore.fanOutRowLock)", [.text("p1")])
        }
        let journaled = await withTaskGroup(of: Bool?.self) { group in
            group.addTask { try? await store.journalAccepted(pushID: "p1", seqs: [installation.seq]) }
            group.addTask { try? await Task.sleep(for: .seconds(5)); return nil }
            let first = await group.next() ?? nil
            // Let the page write end, so a journal commit still waiting (the defect) can finish too.
            _ = try? writer.run { try $0.executeScript("ROLLBACK") }
            group.cancelAll()
            return first
        }
        writer.giveBack()
        #expect(journaled == true, "the journal committed while the page write held the push row")
        #expect(try await store.journaledSeqs(pushID: "p1", after: 0, through: installation.seq) == [installation.seq])
        await store.close()
    }
}
