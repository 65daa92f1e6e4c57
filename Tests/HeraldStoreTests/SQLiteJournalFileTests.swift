import Foundation
import Synchronization
import Testing
@testable import HeraldSQLite
import HeraldStore

/// On SQLite the delivery journal has a file of its own, so its commits do not queue behind the main file's
/// page writes (issue #19: a kill re-sent what APNs had accepted while a journal commit waited for an
/// 8,000-row page write). What the journal holds is the conformance suite's; these tests look at the file.
@Suite struct SQLiteJournalFileTests {
    static func makeStore() async throws -> (SQLiteStore, String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("herald.sqlite").path
        let store = try await SQLiteStore(path: path)
        try await makeApp(store)
        try await makeApp(store, id: "app2")
        return (store, path)
    }

    static func journalRows(_ store: SQLiteStore, _ pushID: String) async throws -> Int {
        try await store.journal.read { try $0.first("SELECT count(*) FROM delivery_journal WHERE push_id = ?", [.text(pushID)]) { $0.int(0) } ?? 0 }
    }

    @Test func aJournalCommitDoesNotWaitForAWriteOnTheMainFile() async throws {
        let (store, _) = try await Self.makeStore()
        try await queuedPush(store, id: "p1")
        // A long write holds the main file's writer, as a fan-out's page write does.
        let gate = DispatchSemaphore(value: 0)
        let (started, start) = AsyncStream<Void>.makeStream()
        let holder = Task { try await store.database.write { _ in start.yield(); gate.wait() } }
        for await _ in started { break }

        let committed = Mutex(false)
        let journaling = Task {
            let kept = try await store.journalAccepted(pushID: "p1", seqs: [7, 9])
            committed.withLock { $0 = kept }
        }
        // The test's own deadline, not a timing: a commit waiting behind the held writer never ends before it.
        let deadline = ContinuousClock.now + .seconds(20)
        while !committed.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let readWhileHeld = try await store.journaledSeqs(pushID: "p1", after: 0, through: 10)
        let committedWhileHeld = committed.withLock { $0 }
        gate.signal()
        try await holder.value
        try await journaling.value
        #expect(committedWhileHeld, "the journal's commit waited for the main file's writer")
        #expect(readWhileHeld == [7, 9])
    }

    @Test func entriesGoWithTheFanOutsEndAndWithPushesThatAreGone() async throws {
        let (store, _) = try await Self.makeStore()
        for i in 0..<3 { _ = try await register(store, iid: "i-\(i)", token: "t\(i)") }
        let members = try await store.audience(appID: "app1", selector: AudienceSelector(source: .all), after: 0, limit: 10)
        let planned = members.map {
            PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment, variant: "", notBefore: t0)
        }
        // The last page is written: the push's entries are of no use any more.
        try await queuedPush(store, id: "done")
        #expect(try await store.journalAccepted(pushID: "done", seqs: members.map(\.seq)))
        #expect(try await Self.journalRows(store, "done") == 1)
        #expect(try await store.recordPage(pushID: "done", after: 0, cursor: members.last!.seq, done: true, badge: nil,
                                           rows: planned.map { PageDelivery(planned: $0, outcome: .sent(status: 200)) }, now: t0))
        #expect(try await Self.journalRows(store, "done") == 0)

        // A push whose app is deleted mid fan-out: the main file's cascade does not reach the journal's file;
        // the next purge's sweep does, and keeps the entries of a fan-out still going.
        try await queuedPush(store, id: "orphan", app: "app2")
        try await queuedPush(store, id: "going")
        #expect(try await store.journalAccepted(pushID: "orphan", seqs: [5]))
        #expect(try await store.journalAccepted(pushID: "going", seqs: [members[0].seq]))
        #expect(try await store.deleteApp(id: "app2"))
        #expect(try await Self.journalRows(store, "orphan") == 1)
        _ = try await store.purgeFinishedPushes(before: t0, limit: 10)
        #expect(try await Self.journalRows(store, "orphan") == 0)
        #expect(try await store.journaledSeqs(pushID: "going", after: 0, through: members.last!.seq) == [members[0].seq])
        // A late answer for a push that is gone is not kept either.
        #expect(try await !store.journalAccepted(pushID: "orphan", seqs: [6]))
        #expect(try await Self.journalRows(store, "orphan") == 0)
    }

    /// The store skips deleting the entries of pushes it knows have none; entries a killed process left
    /// are known from the file when it opens, and go when their fan-out ends.
    @Test func entriesLeftByAnEarlierProcessGoWhenTheirFanOutEnds() async throws {
        let (first, path) = try await Self.makeStore()
        let installation = try await register(first, iid: "i-0", token: "t0")
        try await queuedPush(first, id: "p1")
        #expect(try await first.journalAccepted(pushID: "p1", seqs: [installation.seq]))
        try await queuedPush(first, id: "never-journaled")

        let store = try await SQLiteStore(path: path)
        #expect(try await Self.journalRows(store, "p1") == 1)
        let planned = PlannedDelivery(seq: installation.seq, installationID: installation.id, deviceToken: "t0", environment: "sandbox",
                                      variant: "", notBefore: t0)
        for pushID in ["p1", "never-journaled"] {
            #expect(try await store.recordPage(pushID: pushID, after: 0, cursor: installation.seq, done: true, badge: nil,
                                               rows: [PageDelivery(planned: planned, outcome: .sent(status: 200))], now: t0))
            #expect(try await Self.journalRows(store, pushID) == 0)
        }
    }

    @Test func theJournalsFileSitsBesideTheDatabaseUnderANameOfItsOwn() async throws {
        #expect(SQLiteStore.journalPath(for: "/var/lib/herald/herald.sqlite") == "/var/lib/herald/herald-accepted.sqlite")
        #expect(SQLiteStore.journalPath(for: "/data/store") == "/data/store-accepted.sqlite")
        let (store, path) = try await Self.makeStore()
        #expect(FileManager.default.fileExists(atPath: SQLiteStore.journalPath(for: path)))
        // Migration 16 took the journal's table out of the main file.
        let inMain = try await store.database.read {
            try $0.first("SELECT count(*) FROM sqlite_schema WHERE name = 'delivery_journal'") { $0.int(0) } ?? -1
        }
        #expect(inMain == 0)
    }
}
