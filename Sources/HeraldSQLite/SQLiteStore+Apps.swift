import Foundation
import HeraldStore

extension SQLiteStore {
    static let appColumns = "id, name, topic, default_time_zone, rate_limit, paused_reason, paused_at, created_at, updated_at"

    static func app(_ r: SQLiteRow) -> AppRecord {
        AppRecord(id: r.text(0), name: r.text(1), topic: r.optionalText(2), defaultTimeZone: r.text(3),
                  rateLimit: r.optionalInt(4), pausedReason: r.optionalText(5), pausedAt: r.optionalDate(6),
                  createdAt: r.date(7), updatedAt: r.date(8))
    }

    static func key(_ r: SQLiteRow) -> APIKeyRecord {
        APIKeyRecord(id: r.text(0), appID: r.optionalText(1), scope: KeyScope(rawValue: r.text(2)) ?? .client,
                     hash: r.blob(3), hint: r.text(4), createdAt: r.date(5), revokedAt: r.optionalDate(6))
    }

    public func createApp(_ app: AppRecord, keys: [APIKeyRecord]) async throws {
        try await database.write { db in
            try db.execute("""
                INSERT INTO apps (id, name, topic, default_time_zone, rate_limit, paused_reason, paused_at, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(app.id), .text(app.name), .optionalText(app.topic), .text(app.defaultTimeZone),
                      .optionalInt(app.rateLimit), .optionalText(app.pausedReason), app.pausedAt.sql,
                      app.createdAt.sql, app.updatedAt.sql])
            for key in keys { try Self.insertKey(key, db) }
        }
    }

    public func app(id: String) async throws -> AppRecord? {
        try await database.read { try $0.first("SELECT \(Self.appColumns) FROM apps WHERE id = ?", [.text(id)], Self.app) }
    }

    public func apps() async throws -> [AppRecord] {
        try await database.read { try $0.all("SELECT \(Self.appColumns) FROM apps ORDER BY created_at, id", [], Self.app) }
    }

    public func updateApp(_ app: AppRecord) async throws {
        try await database.write { db in
            try db.execute("""
                UPDATE apps SET name = ?, topic = ?, default_time_zone = ?, rate_limit = ?, paused_reason = ?,
                paused_at = ?, updated_at = ? WHERE id = ?
                """, [.text(app.name), .optionalText(app.topic), .text(app.defaultTimeZone), .optionalInt(app.rateLimit),
                      .optionalText(app.pausedReason), app.pausedAt.sql, app.updatedAt.sql, .text(app.id)])
        }
    }

    public func deleteApp(id: String) async throws -> Bool {
        try await database.write { db in
            // Tags hang off installations; delete them first so the cascade stays cheap.
            try db.execute("DELETE FROM installation_tags WHERE app_id = ?", [.text(id)])
            return try db.execute("DELETE FROM apps WHERE id = ?", [.text(id)]) > 0
        }
    }

    public func setAppPaused(id: String, reason: String?, at: Date?) async throws {
        // A resume without a time (no caller sends one) stamps its event with the wall clock.
        try await setAppPaused(id: id, reason: reason, environment: nil, now: at ?? Date())
    }

    static func insertKey(_ key: APIKeyRecord, _ db: SQLiteConnection) throws {
        try db.execute("""
            INSERT INTO api_keys (id, app_id, scope, hash, hint, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.text(key.id), .optionalText(key.appID), .text(key.scope.rawValue), .blob(key.hash), .text(key.hint),
                  key.createdAt.sql, key.revokedAt.sql])
    }

    public func insertKey(_ key: APIKeyRecord) async throws {
        try await database.write { try Self.insertKey(key, $0) }
    }

    public func key(hash: [UInt8]) async throws -> APIKeyRecord? {
        try await database.read {
            try $0.first("SELECT id, app_id, scope, hash, hint, created_at, revoked_at FROM api_keys WHERE hash = ?",
                         [.blob(hash)], Self.key)
        }
    }

    public func keys(appID: String?) async throws -> [APIKeyRecord] {
        try await database.read { db in
            if let appID {
                return try db.all("SELECT id, app_id, scope, hash, hint, created_at, revoked_at FROM api_keys WHERE app_id = ? ORDER BY created_at, id",
                                  [.text(appID)], Self.key)
            }
            return try db.all("SELECT id, app_id, scope, hash, hint, created_at, revoked_at FROM api_keys WHERE app_id IS NULL ORDER BY created_at, id",
                              [], Self.key)
        }
    }

    public func rotateKey(_ newKey: APIKeyRecord, revokingScope scope: KeyScope, at: Date) async throws {
        try await database.write { db in
            if let appID = newKey.appID {
                try db.execute("UPDATE api_keys SET revoked_at = ? WHERE app_id = ? AND scope = ? AND revoked_at IS NULL",
                               [at.sql, .text(appID), .text(scope.rawValue)])
            } else {
                try db.execute("UPDATE api_keys SET revoked_at = ? WHERE app_id IS NULL AND scope = ? AND revoked_at IS NULL",
                               [at.sql, .text(scope.rawValue)])
            }
            try Self.insertKey(newKey, db)
        }
    }

    public func saveCredential(_ credential: CredentialRecord) async throws {
        try await database.write { db in
            try db.execute("""
                INSERT INTO credentials (app_id, environment, kind, sealed, key_id, team_id, topic, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (app_id, environment) DO UPDATE SET kind = excluded.kind, sealed = excluded.sealed,
                key_id = excluded.key_id, team_id = excluded.team_id, topic = excluded.topic, updated_at = excluded.updated_at
                """, [.text(credential.appID), .text(credential.environment), .text(credential.kind), .blob(credential.sealed),
                      .optionalText(credential.keyID), .optionalText(credential.teamID), .optionalText(credential.topic),
                      credential.createdAt.sql, credential.updatedAt.sql])
            // A new credential is the fix for a credential failure: resume delivery.
            try Self.recordPauseChange(appID: credential.appID, reason: nil, environment: credential.environment, now: credential.updatedAt, db)
            try db.execute("UPDATE apps SET paused_reason = NULL, paused_at = NULL WHERE id = ?", [.text(credential.appID)])
        }
    }

    static func credential(_ r: SQLiteRow) -> CredentialRecord {
        CredentialRecord(appID: r.text(0), environment: r.text(1), kind: r.text(2), sealed: r.blob(3), keyID: r.optionalText(4),
                         teamID: r.optionalText(5), topic: r.optionalText(6), createdAt: r.date(7), updatedAt: r.date(8))
    }

    public func credentials(appID: String) async throws -> [CredentialRecord] {
        try await database.read {
            try $0.all("SELECT app_id, environment, kind, sealed, key_id, team_id, topic, created_at, updated_at FROM credentials WHERE app_id = ? ORDER BY environment",
                       [.text(appID)], Self.credential)
        }
    }

    public func deleteCredential(appID: String, environment: String) async throws -> Bool {
        try await database.write {
            try $0.execute("DELETE FROM credentials WHERE app_id = ? AND environment = ?", [.text(appID), .text(environment)]) > 0
        }
    }
}
