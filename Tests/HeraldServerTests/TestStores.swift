import Foundation
import Testing
@testable import HeraldPostgres

/// The stores server tests run on: SQLite always, PostgreSQL when `HERALD_TEST_POSTGRES_URL` names a test
/// server (`make test` starts one). Each service gets a database of its own.
enum ServerStore: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    static var available: [ServerStore] { postgresTestURL == nil ? [.sqlite] : allCases }

    var testDescription: String { rawValue }

    /// `store.url` for a service on this store: nil for SQLite, a fresh database for PostgreSQL. With a
    /// `directory`, a service started again on that directory (a restart) gets the same database, as it
    /// gets the same SQLite file: the database's URL is kept in the directory.
    func storeURL(directory: URL? = nil) async throws -> String? {
        guard self == .postgres else { return nil }
        guard let directory else { return try await freshPostgresDatabase() }
        let file = directory.appendingPathComponent("postgres-url")
        if let kept = try? String(contentsOf: file, encoding: .utf8) { return kept }
        let url = try await freshPostgresDatabase()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try url.write(to: file, atomically: true, encoding: .utf8)
        return url
    }
}

let postgresTestURL: String? = {
    let value = ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_URL"] ?? ""
    return value.isEmpty ? nil : value
}()

/// Creates an empty database on the test server and returns the URL that names it.
func freshPostgresDatabase() async throws -> String {
    guard let url = postgresTestURL else { throw TestFailure("HERALD_TEST_POSTGRES_URL is not set") }
    let name = "herald_s_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    let admin = try await PostgresStore(url: url, poolSize: 1)
    // An identifier made here from a UUID: CREATE DATABASE takes no parameters.
    try await admin.database.withConnection { try $0.executeScript("CREATE DATABASE \(name)") }
    await admin.close()
    guard url.contains("://"), var components = URLComponents(string: url) else { return url + " dbname=" + name }
    components.path = "/" + name
    return components.string ?? url
}
