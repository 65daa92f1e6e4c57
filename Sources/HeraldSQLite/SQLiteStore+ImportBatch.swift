import Foundation
import HeraldStore

extension SQLiteStore {
    /// The columns a later write of an installation sets (an upsert's `UPDATE`), in the order of `mutableValues`.
    static let mutableColumns = [
        "installation_id", "device_token", "environment", "topic", "alias", "user_id", "locale", "time_zone", "badge",
        "app_version", "os_version", "device_model", "properties", "active", "inactive_reason", "inactive_at", "updated_at",
        "last_seen_at", "token_updated_at",
    ]

    static func mutableValues(_ r: InstallationRecord) -> [SQLValue] {
        [.text(r.installationID), .optionalText(r.deviceToken), .text(r.environment), .optionalText(r.topic),
         .optionalText(r.alias), .optionalText(r.userID), .optionalText(r.locale), .optionalText(r.timeZone), .int(r.badge),
         .optionalText(r.appVersion), .optionalText(r.osVersion), .optionalText(r.deviceModel), .text(r.properties),
         .bool(r.active), .optionalText(r.inactiveReason), r.inactiveAt.sql, r.updatedAt.sql, r.lastSeenAt.sql,
         r.tokenUpdatedAt.sql]
    }

    /// A new installation row: the mutable columns, then those set once (`id`, `app_id`, `created_at`).
    static let insertInstallation = "INSERT INTO installations (" + (mutableColumns + ["id", "app_id", "created_at"]).joined(separator: ", ")
        + ") VALUES (" + Array(repeating: "?", count: mutableColumns.count + 3).joined(separator: ", ") + ")"

    static func insertValues(_ r: InstallationRecord) -> [SQLValue] {
        mutableValues(r) + [.text(r.id), .text(r.appID), r.createdAt.sql]
    }

    /// Every mutable column of the row with `seq` (bound last).
    static let updateInstallation = "UPDATE installations SET " + mutableColumns.map { "\($0) = ?" }.joined(separator: ", ")
        + " WHERE seq = ?"

    /// An import batch with the outcome of upserting each draft in order, in the caller's transaction. Drafts
    /// that match no stored installation and share no installation id or token with an earlier draft of
    /// the batch (a first import: all of them) go in by prepared inserts (`insertNew`), found new by two
    /// indexed look-ups for the whole batch; the others take the one-by-one upsert. Each row is written
    /// as it is met, in the file's order, rather than gathered first: a batch's array of records grew by
    /// doubling to megabytes, and those freed large blocks were much of the import's peak memory.
    static func importBatch(appID: String, drafts: [InstallationDraft], newIDs: [String], now: Date,
                            _ db: SQLiteConnection) throws -> (created: Int, updated: Int) {
        let takenIDs = Set(try db.all("""
            SELECT installation_id FROM installations WHERE app_id = ?1 AND installation_id IN (SELECT value FROM json_each(?2))
            """, [.text(appID), jsonArray(drafts.compactMap(\.installationID))]) { $0.text(0) })
        let takenTokens = Set(try db.all("""
            SELECT device_token FROM installations WHERE app_id = ?1 AND device_token IN (SELECT value FROM json_each(?2))
            """, [.text(appID), jsonArray(drafts.compactMap(\.deviceToken))]) { $0.text(0) })
        var seenIDs = Set<String>(), seenTokens = Set<String>()
        var created = 0, updated = 0
        for (draft, newID) in zip(drafts, newIDs) {
            let iidFree = draft.installationID.map { !takenIDs.contains($0) && seenIDs.insert($0).inserted } ?? true
            let tokenFree = draft.deviceToken.map { !takenTokens.contains($0) && seenTokens.insert($0).inserted } ?? true
            if iidFree && tokenFree {
                var r = InstallationRecord.new(appID: appID, installationID: draft.installationID ?? newID, id: newID,
                                               createdAt: draft.createdAt, now: now)
                r.apply(draft, now: now)
                try insertNew(r, tags: draft.tags, db)
                created += 1
                continue
            }
            // An earlier draft of the batch may be what this one updates: it is already written.
            let (_, isNew) = try upsert(appID: appID, draft: draft, match: .installationIDOrToken, newID: newID, now: now, db, loadTags: false)
            if isNew { created += 1 } else { updated += 1 }
        }
        return (created, updated)
    }

    /// A new installation and its tags, a prepared single-row statement each: the row's `seq` is then the
    /// connection's last insert rowid, with no read-back (a multi-row `INSERT ... RETURNING` had to map
    /// returned ids back to their rows), and SQLite's per-statement cost is small next to the index work.
    static func insertNew(_ r: InstallationRecord, tags list: [String]?, _ db: SQLiteConnection) throws {
        try db.execute(insertInstallation, insertValues(r))
        guard let list, !list.isEmpty else { return }
        let seq = SQLValue.integer(db.lastInsertRowID)
        for tag in list.count == 1 ? list : Array(Set(list)) {
            try db.execute("INSERT INTO installation_tags (app_id, tag, seq) VALUES (?, ?, ?)", [.text(r.appID), .text(tag), seq])
        }
    }
}
