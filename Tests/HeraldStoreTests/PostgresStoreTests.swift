import Foundation
import Testing
@testable import HeraldStore
@testable import HeraldPostgres

/// What only the PostgreSQL store has: several processes' worth of concurrency on one database, the
/// migration lock, and URLs that may carry passwords.
@Suite struct PostgresStoreTests {
    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func nodesStartingTogetherApplyEachMigrationOnce() async throws {
        let url = try await TestPostgres.freshDatabase()
        let versions = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 { group.addTask { try await PostgresStore(url: url, poolSize: 1).schemaVersion() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(versions == Array(repeating: PostgresSchema.migrations.map(\.version).max()!, count: 4))
        let store = try await PostgresStore(url: url, poolSize: 1)
        let rows = try await store.database.read { try $0.first("SELECT count(*) FROM schema_migrations") { $0.int(0) } }
        #expect(rows == PostgresSchema.migrations.count)
    }

    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func concurrentRegistrationsOfOneDeviceMakeOneInstallation() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 4)
        try await makeApp(store)
        // More callers than connections: they queue for the pool, and the same installation id and token
        // from all of them must not trip the unique indexes.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<12 {
                group.addTask { _ = try await register(store, iid: "same", token: "t-same", tags: ["n\(n % 3)"]) }
                group.addTask { _ = try await register(store, iid: "other-\(n)", token: "t-\(n)") }
            }
            try await group.waitForAll()
        }
        #expect(try await store.installationCount(appID: "app1") == 13)
        let same = try #require(try await store.installation(appID: "app1", id: "same"))
        #expect(same.active && same.tags.count == 1)
    }

    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func concurrentIdempotentPushesCreateOne() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 4)
        try await makeApp(store)
        let created = try await withThrowingTaskGroup(of: Bool.self) { group in
            for n in 0..<8 {
                group.addTask {
                    try await store.insertPush(PushRecord(id: "p\(n)", appID: "app1", idempotencyKey: "k", request: "{}", status: .queued,
                                                          createdAt: t0, sendAt: nil, expiresAt: nil), idempotentSince: t0).created
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(created == 1)
    }

    @Test func passwordsAreRedacted() {
        #expect(PostgresStore.redacted("postgres://herald:s3cr%40t@db.example:5432/herald?sslmode=require")
                == "postgres://herald:***@db.example:5432/herald?sslmode=require")
        #expect(PostgresStore.redacted("postgresql://herald@db/herald?password=hunter2&sslmode=verify-full")
                == "postgresql://herald@db/herald?password=***&sslmode=verify-full")
        #expect(PostgresStore.redacted("host=db user=herald password='a b\\' c' dbname=herald")
                == "host=db user=herald password=*** dbname=herald")
        #expect(PostgresStore.redacted("postgresql:///herald") == "postgresql:///herald")
    }

    @Test func aFailedConnectionNamesTheServerButNotThePassword() async throws {
        // Port 1 on localhost: nothing listens there, so libpq fails at once.
        let error = await #expect(throws: PostgresError.self) {
            _ = try await PostgresStore(url: "postgresql://herald:topsecret@127.0.0.1:1/herald?connect_timeout=2")
        }
        let text = String(describing: try #require(error))
        #expect(text.contains("127.0.0.1:1"))
        #expect(!text.contains("topsecret"))
    }
}
