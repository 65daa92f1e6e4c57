import Foundation
import HeraldStore

/// Herald's storage on PostgreSQL, the same contract as `SQLiteStore` with the same SQL meaning, for several
/// `herald serve` nodes on one database. Every value is bound (prepared statements, lists as array
/// parameters); each method is one transaction. Where SQLite relied on having a single writer (look up,
/// then insert), this store takes a row lock or a transaction-scoped advisory lock, so concurrent callers
/// get the answers one writer would have given.
///
/// `url` is handed to libpq unchanged: `postgres://user:pass@host:5432/db?sslmode=require`,
/// `postgresql://...`, or the keyword form `host=... dbname=...`; `PG*` environment variables fill in what
/// it leaves out. TLS is whatever `sslmode` asks for.
public final class PostgresStore: HeraldStorage {
    let database: PostgresDatabase
    /// Registrations and other one-installation writes, committed in groups (`GroupCommit`).
    let installationWrites: GroupCommit<PostgresConnection>
    /// Which apps' next group of registrations is expected to be all new devices (`RegistrationBatch`).
    let recentRegistrations: RecentRegistrations
    /// When to analyze a registry that fills from empty (`RegistryStatistics`).
    let registryStatistics = RegistryStatistics()
    let conninfo: String
    public let node: String
    public var isShared: Bool { true }

    /// Connects, then applies pending migrations (once, even when several nodes start together). Claims
    /// made through this store are recorded under `node`.
    public init(url: String, poolSize: Int = 4, now: Date = Date(), node: String = NodeIdentity.make()) async throws {
        self.node = node
        conninfo = url
        do {
            database = try PostgresDatabase(conninfo: url, size: max(1, poolSize))
        } catch let error as PostgresError {
            throw PostgresError(sqlState: error.sqlState, message: "\(Self.redacted(url)): \(error.message)")
        }
        let recent = RecentRegistrations()
        recentRegistrations = recent
        installationWrites = GroupCommit(lanes: Self.registrationLanes(poolSize: poolSize)) { [database] in
            await database.commitGroup($0, batch: RegistrationBatch($0, recent: recent))
        }
        let stamp = now.timeIntervalSince1970
        _ = try await database.withConnection { try PostgresSchema.migrate($0, now: stamp) }
    }

    /// Group transactions of registrations in flight at once: a quarter of the pool (2 of the serve's 8), so
    /// reads and pushes still find connections. A group is two round trips when its batch writes every
    /// registration (`RegistrationBatch`), and fewer lanes make larger groups: fewer commits, less CPU per
    /// registration. With 16 clients, 2 lanes against 4 registered new devices 19% faster and known ones
    /// 7% faster; 1 and 3 lanes were no better than 2 (docs/performance.md, "Round 18"; in round 15, before
    /// the batch, more lanes were better). Two groups may each hold a lock the other's next write wants;
    /// PostgreSQL reports the deadlock after `deadlock_timeout` (a second by default) and the group it
    /// aborted runs again (`PostgresDatabase.write`; after `retries` such losses its callers get
    /// `StoreError.unavailable`, a 503).
    static func registrationLanes(poolSize: Int) -> Int { max(1, poolSize / 4) }

    /// Closes the pool's connections; the store must not be used afterwards.
    public func close() async {
        _ = await registryStatistics.analysis.withLock { $0 }?.value
        await database.close()
    }

    /// The URL (or keyword string) with any password replaced by `***`, for logs, errors and `--print-config`.
    public static func redacted(_ url: String) -> String {
        var out = url
        if let scheme = out.range(of: "://") {
            // userinfo is everything before the first `@` of the authority (before the path or query).
            let rest = out[scheme.upperBound...]
            let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
                out.replaceSubrange(rest.index(after: colon)..<at, with: "***")
            }
        }
        // `password=...` in a query string or the keyword form (a quoted value may hold spaces).
        var result = ""
        var remaining = Substring(out)
        while let r = remaining.range(of: "password=", options: .caseInsensitive) {
            result += remaining[..<r.upperBound] + "***"
            var end = r.upperBound
            if end < remaining.endIndex, remaining[end] == "'" {
                end = remaining.index(after: end)
                while end < remaining.endIndex, remaining[end] != "'" {
                    if remaining[end] == "\\" { end = remaining.index(after: end) }
                    if end < remaining.endIndex { end = remaining.index(after: end) }
                }
                if end < remaining.endIndex { end = remaining.index(after: end) }
            } else {
                end = remaining[end...].firstIndex(where: { $0 == "&" || $0 == " " }) ?? remaining.endIndex
            }
            remaining = remaining[end...]
        }
        return result + remaining
    }

    public func schemaVersion() async throws -> Int {
        try await database.read { try $0.first("SELECT coalesce(max(version), 0) FROM schema_migrations") { $0.int(0) } ?? 0 }
    }

    public func ping() async throws {
        _ = try await database.read { try $0.first("SELECT 1") { $0.int(0) } }
    }

    public func checkStorage() async -> StoreError? { database.checkStorage() }

    // MARK: Apps, keys, credentials

    static let appColumns = "id, name, topic, default_time_zone, rate_limit, paused_reason, paused_at, created_at, updated_at"

    static func app(_ r: PostgresRow) -> AppRecord {
        AppRecord(id: r.text(0), name: r.text(1), topic: r.optionalText(2), defaultTimeZone: r.text(3),
                  rateLimit: r.optionalInt(4), pausedReason: r.optionalText(5), pausedAt: r.optionalDate(6),
                  createdAt: r.date(7), updatedAt: r.date(8))
    }

    static func key(_ r: PostgresRow) -> APIKeyRecord {
        APIKeyRecord(id: r.text(0), appID: r.optionalText(1), scope: KeyScope(rawValue: r.text(2)) ?? .client,
                     hash: r.blob(3), hint: r.text(4), createdAt: r.date(5), revokedAt: r.optionalDate(6))
    }

    public func createApp(_ app: AppRecord, keys: [APIKeyRecord]) async throws {
        try await database.write { db in
            try db.execute("""
                INSERT INTO apps (id, name, topic, default_time_zone, rate_limit, paused_reason, paused_at, created_at, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                """, [.text(app.id), .text(app.name), .optionalText(app.topic), .text(app.defaultTimeZone),
                      .optionalInt(app.rateLimit), .optionalText(app.pausedReason), app.pausedAt.pg,
                      app.createdAt.pg, app.updatedAt.pg])
            for key in keys { try Self.insertKey(key, db) }
        }
    }

    public func app(id: String) async throws -> AppRecord? {
        try await database.read { try $0.first("SELECT \(Self.appColumns) FROM apps WHERE id = $1", [.text(id)], Self.app) }
    }

    public func apps() async throws -> [AppRecord] {
        try await database.read { try $0.all("SELECT \(Self.appColumns) FROM apps ORDER BY created_at, id", [], Self.app) }
    }

    public func updateApp(_ app: AppRecord) async throws {
        try await database.write { db in
            try db.execute("""
                UPDATE apps SET name = $1, topic = $2, default_time_zone = $3, rate_limit = $4, paused_reason = $5,
                paused_at = $6, updated_at = $7 WHERE id = $8
                """, [.text(app.name), .optionalText(app.topic), .text(app.defaultTimeZone), .optionalInt(app.rateLimit),
                      .optionalText(app.pausedReason), app.pausedAt.pg, app.updatedAt.pg, .text(app.id)])
        }
    }

    public func deleteApp(id: String) async throws -> Bool {
        try await database.write { db in
            // Installations, their tags and deliveries have no foreign key (migration 9): they go explicitly,
            // under the app's lock taken alone, so no registration or import of the app is half done; those
            // after it find no app. The pushes (and their failures and opens) still cascade from the app.
            try db.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [.text(Self.appLockKey(id))])
            try db.execute("DELETE FROM installation_tags WHERE app_id = $1", [.text(id)])
            try db.execute("DELETE FROM installations WHERE app_id = $1", [.text(id)])
            // The pushes' rows first: a fan-out page being written holds its push's row, and one written after
            // this finds its push gone, so no delivery row is added behind the delete.
            try db.execute("SELECT 1 FROM pushes WHERE app_id = $1 FOR UPDATE", [.text(id)])
            try db.execute("DELETE FROM deliveries WHERE push_id IN (SELECT id FROM pushes WHERE app_id = $1)", [.text(id)])
            return try db.execute("DELETE FROM apps WHERE id = $1", [.text(id)]) > 0
        }
    }

    public func setAppPaused(id: String, reason: String?, at: Date?) async throws {
        // A resume without a time (no caller sends one) stamps its event with the wall clock.
        try await setAppPaused(id: id, reason: reason, environment: nil, now: at ?? Date())
    }

    static func insertKey(_ key: APIKeyRecord, _ db: PostgresConnection) throws {
        try db.execute("""
            INSERT INTO api_keys (id, app_id, scope, hash, hint, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
            """, [.text(key.id), .optionalText(key.appID), .text(key.scope.rawValue), .blob(key.hash), .text(key.hint),
                  key.createdAt.pg, key.revokedAt.pg])
    }

    public func insertKey(_ key: APIKeyRecord) async throws {
        try await database.write { try Self.insertKey(key, $0) }
    }

    public func key(hash: [UInt8]) async throws -> APIKeyRecord? {
        try await database.read {
            try $0.first("SELECT id, app_id, scope, hash, hint, created_at, revoked_at FROM api_keys WHERE hash = $1", [.blob(hash)], Self.key)
        }
    }

    public func keys(appID: String?) async throws -> [APIKeyRecord] {
        try await database.read { db in
            if let appID {
                return try db.all("SELECT id, app_id, scope, hash, hint, created_at, revoked_at FROM api_keys WHERE app_id = $1 ORDER BY created_at, id",
                                  [.text(appID)], Self.key)
            }
            return try db.all("SELECT id, app_id, scope, hash, hint, created_at, revoked_at FROM api_keys WHERE app_id IS NULL ORDER BY created_at, id",
                              [], Self.key)
        }
    }

    public func rotateKey(_ newKey: APIKeyRecord, revokingScope scope: KeyScope, at: Date) async throws {
        try await database.write { db in
            if let appID = newKey.appID {
                try db.execute("UPDATE api_keys SET revoked_at = $1 WHERE app_id = $2 AND scope = $3 AND revoked_at IS NULL",
                               [at.pg, .text(appID), .text(scope.rawValue)])
            } else {
                try db.execute("UPDATE api_keys SET revoked_at = $1 WHERE app_id IS NULL AND scope = $2 AND revoked_at IS NULL",
                               [at.pg, .text(scope.rawValue)])
            }
            try Self.insertKey(newKey, db)
        }
    }

    public func saveCredential(_ credential: CredentialRecord) async throws {
        try await database.write { db in
            try db.execute("""
                INSERT INTO credentials (app_id, environment, kind, sealed, key_id, team_id, topic, created_at, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                ON CONFLICT (app_id, environment) DO UPDATE SET kind = excluded.kind, sealed = excluded.sealed,
                key_id = excluded.key_id, team_id = excluded.team_id, topic = excluded.topic, updated_at = excluded.updated_at
                """, [.text(credential.appID), .text(credential.environment), .text(credential.kind), .blob(credential.sealed),
                      .optionalText(credential.keyID), .optionalText(credential.teamID), .optionalText(credential.topic),
                      credential.createdAt.pg, credential.updatedAt.pg])
            // A new credential is the fix for a credential failure: resume delivery.
            try Self.recordPauseChange(appID: credential.appID, reason: nil, environment: credential.environment, now: credential.updatedAt, db)
            try db.execute("UPDATE apps SET paused_reason = NULL, paused_at = NULL WHERE id = $1", [.text(credential.appID)])
        }
    }

    static func credential(_ r: PostgresRow) -> CredentialRecord {
        CredentialRecord(appID: r.text(0), environment: r.text(1), kind: r.text(2), sealed: r.blob(3), keyID: r.optionalText(4),
                         teamID: r.optionalText(5), topic: r.optionalText(6), createdAt: r.date(7), updatedAt: r.date(8))
    }

    public func credentials(appID: String) async throws -> [CredentialRecord] {
        try await database.read {
            try $0.all("SELECT app_id, environment, kind, sealed, key_id, team_id, topic, created_at, updated_at FROM credentials WHERE app_id = $1 ORDER BY environment",
                       [.text(appID)], Self.credential)
        }
    }

    public func deleteCredential(appID: String, environment: String) async throws -> Bool {
        try await database.write {
            try $0.execute("DELETE FROM credentials WHERE app_id = $1 AND environment = $2", [.text(appID), .text(environment)]) > 0
        }
    }
}
