import Foundation
import HeraldStore

extension SQLiteStore {
    static let installationColumns = """
        seq, id, app_id, installation_id, device_token, environment, topic, alias, user_id, locale, time_zone, badge,
        app_version, os_version, device_model, properties, active, inactive_reason, inactive_at, created_at, updated_at,
        last_seen_at, token_updated_at
        """

    // Built once: interpolated at each call, these were a fresh half-kilobyte string per registration.
    static let selectByID = "SELECT \(installationColumns) FROM installations WHERE id = ? AND app_id = ?"
    static let selectByInstallationID = "SELECT \(installationColumns) FROM installations WHERE app_id = ? AND installation_id = ?"
    static let selectByToken = "SELECT \(installationColumns) FROM installations WHERE app_id = ? AND device_token = ? LIMIT 1"

    static func installation(_ r: SQLiteRow) -> InstallationRecord {
        InstallationRecord(seq: r.int64(0), id: r.text(1), appID: r.text(2), installationID: r.text(3),
                           deviceToken: r.optionalText(4), environment: r.text(5), topic: r.optionalText(6), tags: [],
                           alias: r.optionalText(7), userID: r.optionalText(8), locale: r.optionalText(9),
                           timeZone: r.optionalText(10), badge: r.int(11), appVersion: r.optionalText(12),
                           osVersion: r.optionalText(13), deviceModel: r.optionalText(14), properties: r.text(15),
                           active: r.bool(16), inactiveReason: r.optionalText(17), inactiveAt: r.optionalDate(18),
                           createdAt: r.date(19), updatedAt: r.date(20), lastSeenAt: r.date(21), tokenUpdatedAt: r.date(22))
    }

    static func withTags(_ record: InstallationRecord, _ db: SQLiteConnection) throws -> InstallationRecord {
        var r = record
        r.tags = try db.all("SELECT tag FROM installation_tags WHERE app_id = ? AND seq = ? ORDER BY tag",
                            [.text(r.appID), .integer(r.seq)]) { $0.text(0) }
        return r
    }

    static func findInstallation(appID: String, id: String, _ db: SQLiteConnection) throws -> InstallationRecord? {
        let byID = try db.first(selectByID,
                                [.text(id), .text(appID)], installation)
        if let byID { return byID }
        return try db.first(selectByInstallationID,
                            [.text(appID), .text(id)], installation)
    }

    public func installation(appID: String, id: String) async throws -> InstallationRecord? {
        try await database.read { db in
            try Self.findInstallation(appID: appID, id: id, db).map { try Self.withTags($0, db) }
        }
    }

    static func findActive(appID: String, deviceToken: String, _ db: SQLiteConnection) throws -> InstallationRecord? {
        try db.first(selectActiveByToken, [.text(appID), .text(deviceToken)], installation).map { try withTags($0, db) }
    }

    static let insertTag = "INSERT INTO installation_tags (app_id, tag, seq) VALUES (?, ?, ?)"

    /// Through the (app, token) index; the oldest first, as the audience query orders them.
    static let selectActiveByToken = "SELECT \(installationColumns) FROM installations INDEXED BY installations_app_token WHERE app_id = ? AND device_token = ? AND active = 1 ORDER BY seq LIMIT 1"

    /// Creates or updates one installation, in a group transaction with the other registrations arriving
    /// meanwhile (answered once it committed). Returns the stored record and whether it is new.
    public func upsertInstallation(appID: String, draft: InstallationDraft, match: InstallationMatch, newID: String,
                                   now: Date) async throws -> (InstallationRecord, created: Bool) {
        // Only a match by installation id or token can create a row; an update by id never needs one built.
        var fresh: SQLiteNewInstallation?
        if case .installationIDOrToken = match { fresh = SQLiteNewInstallation(appID: appID, draft: draft, newID: newID, now: now) }
        return try await installationWrites.write { [fresh] db in
            try Self.upsert(appID: appID, draft: draft, match: match, newID: newID, now: now, db, fresh: fresh)
        }
    }

    public func saveInstallation(appID: String, _ save: InstallationSave, newID: String, now: Date) async throws -> (InstallationRecord, created: Bool) {
        try await installationWrites.write { db in
            let (draft, found) = try save.resolve(
                find: { try Self.findInstallation(appID: appID, id: $0, db).map { try Self.withTags($0, db) } },
                findActive: { try Self.findActive(appID: appID, deviceToken: $0, db) })
            return try Self.upsert(appID: appID, draft: draft, match: found.map { .existing($0.id) } ?? .installationIDOrToken,
                                   newID: newID, now: now, db, found: found)
        }
    }

    /// Nothing to do: each import batch's commit is already durable, and SQLite plans without statistics
    /// unless ANALYZE was run, which this store never does, so its plans for the audience queries follow the
    /// indexes whatever the table's size.
    public func installationsImported(refreshingStatistics: Bool) async throws {}

    /// SQLite's one writer serves every registration of every app, which waits behind an import's batch. With
    /// new rows written 32 per statement a batch of 5,000 takes ~40 ms (docs/performance.md, "Round 7"), as
    /// 2,500 did one row per statement, and imports 6-8% faster than 2,500 (fewer commits and existence
    /// checks) for ~10 MiB more at peak: an importer holds two encoded batches, prepared ahead.
    public var importBatchSize: Int { 5_000 }

    /// Every draft's rows as statement parameters (`SQLiteImportRows`), so the writer only binds and steps.
    public func prepareImport(appID: String, drafts: [InstallationDraft], newIDs: [String], now: Date) -> PreparedImport {
        PreparedImport(appID: appID, drafts: drafts, newIDs: newIDs, now: now,
                       encoded: SQLiteImportRows(appID: appID, drafts: drafts, newIDs: newIDs, now: now))
    }

    /// Imports many installations in one transaction (`importBatch`); returns (created, updated).
    public func importInstallations(_ batch: PreparedImport) async throws -> (created: Int, updated: Int) {
        let rows = batch.encoded as? SQLiteImportRows ?? SQLiteImportRows(batch)
        // Every row of a batch belongs to its app, checked once here, and each tag row to an installation
        // the batch wrote or found: SQLite's own check of both, per row, was ~6% of an import's time.
        return try await database.write(selfCheckedRows: batch.drafts.count) { db in
            guard try db.first("SELECT 1 FROM apps WHERE id = ?", [.text(batch.appID)], { $0.int(0) }) != nil else {
                throw StoreError.notFound
            }
            return try Self.importBatch(batch, rows: rows, db)
        }
    }

    /// `found`: the installation `match` names, already read in this transaction (a save's), not read again.
    /// `fresh`: the row as it goes in if no stored installation matches, built off the writer for the same
    /// `appID`, `draft`, `newID` and `now` (a registration's); it is answered with its tags.
    static func upsert(appID: String, draft: InstallationDraft, match: InstallationMatch, newID: String, now: Date,
                       _ db: SQLiteConnection, loadTags: Bool = true, found: InstallationRecord? = nil,
                       fresh: SQLiteNewInstallation? = nil) throws -> (InstallationRecord, created: Bool) {
        var existing: InstallationRecord?
        // Whether another row may still hold the draft's token (decides if the dedup UPDATE is needed).
        var tokenMayBeElsewhere = true
        switch match {
        case .existing(let id):
            guard let row = try found ?? findInstallation(appID: appID, id: id, db) else { throw StoreError.notFound }
            existing = row
        case .installationIDOrToken:
            if let iid = draft.installationID {
                existing = try db.first(selectByInstallationID,
                                        [.text(appID), .text(iid)], installation)
            }
            if existing == nil, let token = draft.deviceToken {
                // A reinstall keeps the token but gets a new installation id: adopt the old row.
                existing = try db.first(selectByToken,
                                        [.text(appID), .text(token)], installation)
                if existing == nil { tokenMayBeElsewhere = false }
            }
        }
        if existing == nil, let fresh {
            // A new device: no row holds its installation id or token, so no other row needs its token cleared.
            return (try fresh.insert(db), true)
        }
        var r = existing ?? .new(appID: appID, installationID: draft.installationID ?? newID, id: newID, createdAt: draft.createdAt, now: now)
        if let iid = draft.installationID, iid != r.installationID {
            if try db.first("SELECT 1 FROM installations WHERE app_id = ? AND installation_id = ?", [.text(appID), .text(iid)], { $0.int(0) }) != nil {
                throw StoreError.conflict("installationId \(iid) already belongs to another installation")
            }
            r.installationID = iid
        }
        r.apply(draft, now: now)
        if existing == nil {
            try db.execute(insertInstallation, insertValues(r))
            r.seq = db.lastInsertRowID
        } else {
            try db.execute(updateInstallation, mutableValues(r) + [.integer(r.seq)])
        }
        if existing?.deviceToken == draft.deviceToken { tokenMayBeElsewhere = false }   // unchanged token: invariant holds
        if let token = draft.deviceToken, tokenMayBeElsewhere {
            // One token, one device: older rows holding the same token are stale copies and must not get pushes.
            try db.execute("""
                UPDATE installations SET device_token = NULL, active = 0, inactive_reason = 'Replaced', inactive_at = ?, updated_at = ?
                WHERE app_id = ? AND device_token = ? AND seq <> ?
                """, [now.sql, now.sql, .text(appID), .text(token), .integer(r.seq)])
        }
        var written: Set<String>?
        if let tags = draft.tags {
            if existing != nil {
                try db.execute("DELETE FROM installation_tags WHERE app_id = ? AND seq = ?", [.text(appID), .integer(r.seq)])
            }
            let unique = Set(tags)
            for tag in unique {
                try db.execute(insertTag, [.text(appID), .text(tag), .integer(r.seq)])
            }
            written = unique
        }
        guard loadTags else { return (r, existing == nil) }
        return (try r.answering(written: written, existed: existing != nil) { try withTags($0, db) }, existing == nil)
    }

    public func deleteInstallation(appID: String, id: String) async throws -> Bool {
        try await installationWrites.write { db in
            guard let r = try Self.findInstallation(appID: appID, id: id, db) else { return false }
            try db.execute("DELETE FROM installation_tags WHERE app_id = ? AND seq = ?", [.text(appID), .integer(r.seq)])
            try db.execute("DELETE FROM installations WHERE seq = ?", [.integer(r.seq)])
            return true
        }
    }

    public func updateTags(appID: String, id: String, add: [String], remove: [String], now: Date) async throws -> InstallationRecord {
        try await installationWrites.write { db in
            guard var r = try Self.findInstallation(appID: appID, id: id, db) else { throw StoreError.notFound }
            for tag in remove {
                try db.execute("DELETE FROM installation_tags WHERE app_id = ? AND tag = ? AND seq = ?", [.text(appID), .text(tag), .integer(r.seq)])
            }
            for tag in add {
                try db.execute("INSERT OR IGNORE INTO installation_tags (app_id, tag, seq) VALUES (?, ?, ?)", [.text(appID), .text(tag), .integer(r.seq)])
            }
            try db.execute("UPDATE installations SET updated_at = ?, last_seen_at = ? WHERE seq = ?", [now.sql, now.sql, .integer(r.seq)])
            r.updatedAt = now
            r.lastSeenAt = now
            return try Self.withTags(r, db)
        }
    }

    /// One page of installations in `seq` order, matching every filter set in `query`.
    public func installations(appID: String, query q: InstallationQuery) async throws -> [InstallationRecord] {
        try await database.read { db in
            let rows = try db.all("""
                SELECT \(Self.installationColumns) FROM installations i INDEXED BY installations_app_seq
                WHERE i.app_id = ?1 AND i.seq > ?2
                  AND (?3 IS NULL OR EXISTS (SELECT 1 FROM installation_tags t WHERE t.app_id = ?1 AND t.tag = ?3 AND t.seq = i.seq))
                  AND (?4 IS NULL OR i.alias = ?4)
                  AND (?5 IS NULL OR i.user_id = ?5)
                  AND (?6 IS NULL OR i.device_token = ?6)
                  AND (?7 IS NULL OR i.active = ?7)
                  AND (?8 IS NULL OR i.updated_at >= ?8)
                ORDER BY i.seq LIMIT ?9
                """, [.text(appID), .integer(q.afterSeq), .optionalText(q.tag), .optionalText(q.alias), .optionalText(q.userID),
                      .optionalText(q.deviceToken), q.active.map(SQLValue.bool) ?? .null, q.updatedSince.sql, .int(q.limit)],
                Self.installation)
            return try rows.map { try Self.withTags($0, db) }
        }
    }

    /// Tags of the app with how many installations carry each, in name order after `after`.
    public func tags(appID: String, after: String?, limit: Int) async throws -> [(tag: String, count: Int)] {
        try await database.read { db in
            try db.all("""
                SELECT tag, count(*) FROM installation_tags WHERE app_id = ? AND tag > ? GROUP BY tag ORDER BY tag LIMIT ?
                """, [.text(appID), .text(after ?? ""), .int(limit)]) { (tag: $0.text(0), count: $0.int(1)) }
        }
    }

    public func aliases(appID: String, after: String?, limit: Int) async throws -> [(alias: String, count: Int)] {
        try await database.read { db in
            try db.all("""
                SELECT alias, count(*) FROM installations WHERE app_id = ? AND alias IS NOT NULL AND alias > ?
                GROUP BY alias ORDER BY alias LIMIT ?
                """, [.text(appID), .text(after ?? ""), .int(limit)]) { (alias: $0.text(0), count: $0.int(1)) }
        }
    }

    public func removeTagEverywhere(appID: String, tag: String) async throws -> Int {
        try await database.write { db in
            try db.execute("DELETE FROM installation_tags WHERE app_id = ? AND tag = ?", [.text(appID), .text(tag)])
        }
    }

    public func installationCount(appID: String) async throws -> Int {
        try await database.read { try $0.first("SELECT count(*) FROM installations WHERE app_id = ?", [.text(appID)]) { $0.int(0) } ?? 0 }
    }
}
