import Foundation
import Testing
@testable import HeraldSQLite
import HeraldStore

/// The writer's prepared statements stay compiled through the small writes of every push: turning SQLite's
/// foreign key checks off and on expires them all, and a one-device push's page did that, so the next push
/// compiled its insert again on the way to its answer (issue #19, row 6).
@Suite struct SQLiteWriterStatementsTests {
    static func makeStore() async throws -> SQLiteStore {
        let store = try #require(try await StoreKind.sqlite.makeStore().store as? SQLiteStore)
        try await makeApp(store)
        return store
    }

    static func recompiled(_ store: SQLiteStore) async throws -> Int {
        try await store.database.withWriter { $0.recompiledStatements }
    }

    /// Writes one page of `count` sent deliveries for `pushID` to the app's first `count` installations.
    static func writePage(_ store: SQLiteStore, pushID: String, count: Int) async throws -> Bool {
        let members = try await store.audience(appID: "app1", selector: AudienceSelector(source: .all), after: 0, limit: count)
        let rows = members.map {
            PageDelivery(planned: PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken,
                                                  environment: $0.environment, variant: "", notBefore: t0),
                         outcome: .sent(status: 200))
        }
        let last = try #require(members.last, "the app has no installations to write a page for")
        return try await store.recordPage(pushID: pushID, after: 0, cursor: last.seq, done: true, badge: nil, rows: rows, now: t0)
    }

    @Test func aOneDevicePushLeavesTheWritersStatementsCompiled() async throws {
        let store = try await Self.makeStore()
        _ = try await register(store, iid: "i-0", token: "t0")
        try await queuedPush(store, id: "first")
        #expect(try await Self.writePage(store, pushID: "first", count: 1))
        let before = try await Self.recompiled(store)
        // The statements of a push and its page are all prepared by now; none is compiled again.
        try await queuedPush(store, id: "second")
        #expect(try await Self.writePage(store, pushID: "second", count: 1))
        _ = try await register(store, iid: "i-1", token: "t1")
        #expect(try await Self.recompiled(store) == before)
        let sent = try await store.push(id: "second")?.counts.sent
        #expect(sent == 1)
    }

    @Test func aLargePageIsWrittenWithoutSQLitesChecksAndKeepsItsReferences() async throws {
        let store = try await Self.makeStore()
        let count = SQLiteDatabase.uncheckedWriteRows
        let drafts = (0..<count).map { InstallationDraft(installationID: "i-\($0)", deviceToken: String(format: "%064x", $0), environment: "sandbox") }
        _ = try await store.importInstallations(appID: "app1", drafts: drafts, newIDs: drafts.map { _ in InstallationRecord.newID() }, now: t0)
        try await queuedPush(store, id: "first")
        #expect(try await Self.writePage(store, pushID: "first", count: 1))
        try await queuedPush(store, id: "large")
        let before = try await Self.recompiled(store)
        #expect(try await Self.writePage(store, pushID: "large", count: count))
        try await queuedPush(store, id: "next")
        // The checks went off and on around the page, which expired the push's insert: it was compiled again.
        #expect(try await Self.recompiled(store) > before)
        // Every row references its push, as SQLite would have checked.
        let orphans = try await store.database.read {
            try $0.first("SELECT count(*) FROM deliveries d WHERE NOT EXISTS (SELECT 1 FROM pushes p WHERE p.id = d.push_id)") { $0.int(0) }
        }
        #expect(orphans == 0)
        let sent = try await store.push(id: "large")?.counts.sent
        #expect(sent == count)
    }
}
