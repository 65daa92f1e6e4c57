import Foundation
import Testing
import HeraldStore
@testable import HeraldPostgres

/// On PostgreSQL an import's batches commit without waiting for the disk, and the import waits once, at its
/// end (`installationsImported`), before it answers. So what an import answered must survive a crash of the
/// database server right after. The server here is one of the test's own, whose WAL writer is made slow
/// (10 s instead of 0.2 s) so that batches committed without waiting are still only in its memory when it
/// is killed: without the final wait the last of them are lost.
@Suite(.enabled(if: postgresTestURL != nil, "needs HERALD_TEST_POSTGRES_URL (make test starts a server)"))
struct ImportDurabilityTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    static func drafts(_ batch: Int, count: Int) -> [InstallationDraft] {
        (0..<count).map { i in
            var draft = InstallationDraft(installationID: nil, deviceToken: String(format: "%064x", batch * 1_000_000 + i), environment: "sandbox")
            draft.tags = ["all", "batch\(batch)"]
            return draft
        }
    }

    @Test func whatAnImportAnsweredSurvivesADatabaseCrash() async throws {
        let server = try MultiNodeTests.OwnServer.start()
        defer { server.stop() }
        let store = try await PostgresStore(url: server.url, poolSize: 2)
        _ = try await store.database.withConnection { db in
            _ = try db.execute("ALTER SYSTEM SET wal_writer_delay = '10s'")
            _ = try db.execute("SELECT pg_reload_conf()")
        }
        try await store.createApp(AppRecord(id: "app1", name: "app1", topic: "com.example.app1", defaultTimeZone: "UTC", rateLimit: nil,
                                            createdAt: Self.now, updatedAt: Self.now), keys: [])
        var written = 0
        for batch in 0..<4 {
            let drafts = Self.drafts(batch, count: 2_000)
            let result = try await store.importInstallations(appID: "app1", drafts: drafts, newIDs: drafts.map { _ in InstallationRecord.newID() },
                                                             now: Self.now)
            written += result.created
        }
        try await store.installationsImported(refreshingStatistics: false)
        await store.close()
        try server.crash()
        try server.up()

        let reopened = try await PostgresStore(url: server.url, poolSize: 1)
        let count = try await reopened.installationCount(appID: "app1")
        let tags = try await reopened.tags(appID: "app1", after: nil, limit: 10)
        await reopened.close()
        #expect(written == 8_000)
        #expect(count == 8_000)
        #expect(tags.map(\.count) == [8_000, 2_000, 2_000, 2_000, 2_000])
    }
}
