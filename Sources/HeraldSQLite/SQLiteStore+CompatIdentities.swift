import Foundation
import HeraldStore

extension SQLiteStore {
    public func saveCompatIdentity(_ identity: CompatIdentityRecord) async throws {
        try await database.write { db in
            let owner = try db.first("SELECT app_id FROM compat_identities WHERE provider = ? AND public_id = ?",
                                     [.text(identity.provider), .text(identity.publicID)]) { $0.text(0) }
            if let owner, owner != identity.appID {
                throw StoreError.conflict("\(identity.provider) id \(identity.publicID) already belongs to another app")
            }
            try db.execute("""
                INSERT INTO compat_identities (app_id, provider, public_id, sealed, hint, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (app_id, provider) DO UPDATE SET public_id = excluded.public_id, sealed = excluded.sealed,
                hint = excluded.hint, updated_at = excluded.updated_at
                """, [.text(identity.appID), .text(identity.provider), .text(identity.publicID), .blob(identity.sealed),
                      .text(identity.hint), identity.createdAt.sql, identity.updatedAt.sql])
        }
    }

    public func compatIdentity(provider: String, publicID: String) async throws -> CompatIdentityRecord? {
        try await database.read {
            try $0.first("SELECT \(Self.compatColumns) FROM compat_identities WHERE provider = ? AND public_id = ?",
                         [.text(provider), .text(publicID)], Self.compatIdentity)
        }
    }

    public func compatIdentity(appID: String, provider: String) async throws -> CompatIdentityRecord? {
        try await database.read {
            try $0.first("SELECT \(Self.compatColumns) FROM compat_identities WHERE app_id = ? AND provider = ?",
                         [.text(appID), .text(provider)], Self.compatIdentity)
        }
    }

    public func deleteCompatIdentity(appID: String, provider: String) async throws -> Bool {
        try await database.write {
            try $0.execute("DELETE FROM compat_identities WHERE app_id = ? AND provider = ?", [.text(appID), .text(provider)]) > 0
        }
    }

    static let compatColumns = "app_id, provider, public_id, sealed, hint, created_at, updated_at"

    static func compatIdentity(_ r: SQLiteRow) -> CompatIdentityRecord {
        CompatIdentityRecord(appID: r.text(0), provider: r.text(1), publicID: r.text(2), sealed: r.blob(3), hint: r.text(4),
                             createdAt: r.date(5), updatedAt: r.date(6))
    }
}
