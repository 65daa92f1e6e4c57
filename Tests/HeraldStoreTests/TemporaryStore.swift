import Foundation
import Testing
@testable import HeraldSQLite
import HeraldStore
@testable import HeraldPostgres

/// The stores the conformance suite runs against: SQLite always, PostgreSQL when `HERALD_TEST_POSTGRES_URL`
/// names a server the tests may create databases on (`make test` starts one: scripts/postgres-test.sh).
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    static var available: [StoreKind] { TestPostgres.url == nil ? [.sqlite] : allCases }

    var testDescription: String { rawValue }

    /// A store on a fresh, empty database of this kind, and how to open that database again.
    func makeStore() async throws -> TestStore {
        switch self {
        case .sqlite:
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let path = dir.appendingPathComponent("herald.sqlite").path
            return TestStore(store: try await SQLiteStore(path: path), schemaVersion: SQLiteSchema.migrations.map(\.version).max()!,
                             reopen: { try await SQLiteStore(path: path) }, openAsNode: { try await SQLiteStore(path: path, node: $0) })
        case .postgres:
            let url = try await TestPostgres.freshDatabase()
            return TestStore(store: try await PostgresStore(url: url), schemaVersion: PostgresSchema.migrations.map(\.version).max()!,
                             reopen: { try await PostgresStore(url: url) }, openAsNode: { try await PostgresStore(url: url, node: $0) })
        }
    }
}

struct TestStore: Sendable {
    let store: any HeraldStorage
    /// The newest migration of this kind of store (each engine numbers its own).
    let schemaVersion: Int
    let reopen: @Sendable () async throws -> any HeraldStorage
    /// The same database through another store whose claims are recorded under the given node.
    let openAsNode: @Sendable (String) async throws -> any HeraldStorage
}

/// The PostgreSQL server for tests. Each test gets a database of its own, so tests run in parallel and
/// never see each other's rows; they are named `herald_t_...` and go with the throwaway cluster.
enum TestPostgres {
    static let url: String? = {
        let value = ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_URL"] ?? ""
        return value.isEmpty ? nil : value
    }()

    static let skipReason: Comment = "HERALD_TEST_POSTGRES_URL is not set: the PostgreSQL cases are skipped (`make test` starts a throwaway server and sets it)"

    /// Creates an empty database and returns the URL that names it.
    static func freshDatabase() async throws -> String {
        guard let url else { throw StoreTestFailure("HERALD_TEST_POSTGRES_URL is not set") }
        let name = "herald_t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let store = try await PostgresStore(url: url, poolSize: 1)
        // An identifier (made here from a UUID, never from input): CREATE DATABASE takes no parameters.
        try await store.database.withConnection { try $0.executeScript("CREATE DATABASE \(name)") }
        await store.close()
        return with(url, database: name)
    }

    /// `url` naming database `name` instead: the path of a URL, or `dbname=` of the keyword form.
    static func with(_ url: String, database name: String) -> String {
        if url.contains("://"), var components = URLComponents(string: url) {
            components.path = "/" + name
            return components.string ?? url
        }
        return url + " dbname=" + name
    }
}

let t0 = Date(timeIntervalSince1970: 1_800_000_000)

func makeApp(_ store: any HeraldStorage, id: String = "app1") async throws {
    try await store.createApp(AppRecord(id: id, name: id, topic: "com.example.\(id)", defaultTimeZone: "UTC", rateLimit: nil,
                                        createdAt: t0, updatedAt: t0), keys: [])
}

/// A queued push with an empty request, as the API stores one before its fan-out.
func queuedPush(_ store: any HeraldStorage, id: String = "p1", app: String = "app1") async throws {
    _ = try await store.insertPush(PushRecord(id: id, appID: app, idempotencyKey: nil, request: "{}", status: .queued,
                                              createdAt: t0, sendAt: nil, expiresAt: nil), idempotentSince: t0)
}

func register(_ store: any HeraldStorage, app: String = "app1", iid: String, token: String, tags: [String] = [], now: Date = t0) async throws -> InstallationRecord {
    var d = InstallationDraft(installationID: iid, deviceToken: token, environment: "production")
    d.tags = tags
    return try await store.upsertInstallation(appID: app, draft: d, match: .installationIDOrToken, newID: UUID().uuidString, now: now).0
}
