import Foundation
@testable import HeraldStore

/// A store on a fresh SQLite file in its own temporary directory.
func makeStore(_ name: String = #function) async throws -> (SQLiteStore, URL) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-store-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let store = try await SQLiteStore(path: dir.appendingPathComponent("herald.sqlite").path)
    return (store, dir)
}

let t0 = Date(timeIntervalSince1970: 1_800_000_000)

func makeApp(_ store: SQLiteStore, id: String = "app1") async throws {
    try await store.createApp(AppRecord(id: id, name: id, topic: "com.example.\(id)", defaultTimeZone: "UTC", rateLimit: nil,
                                        createdAt: t0, updatedAt: t0), keys: [])
}

func register(_ store: SQLiteStore, app: String = "app1", iid: String, token: String, tags: [String] = [], now: Date = t0) async throws -> InstallationRecord {
    var d = InstallationDraft(installationID: iid, deviceToken: token, environment: "production")
    d.tags = tags
    return try await store.upsertInstallation(appID: app, draft: d, match: .installationIDOrToken, newID: UUID().uuidString, now: now).0
}
