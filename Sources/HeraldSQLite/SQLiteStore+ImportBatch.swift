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
        var values: [SQLValue] = []
        values.reserveCapacity(mutableColumns.count + 3)
        mutableValues(r) { values.append($0) }
        return values
    }

    /// Each of `mutableValues`, handed to `value` in turn: an import encodes millions, without an array each.
    static func mutableValues(_ r: InstallationRecord, _ value: (SQLValue) -> Void) {
        value(.text(r.installationID)); value(.optionalText(r.deviceToken)); value(.text(r.environment)); value(.optionalText(r.topic))
        value(.optionalText(r.alias)); value(.optionalText(r.userID)); value(.optionalText(r.locale)); value(.optionalText(r.timeZone))
        value(.int(r.badge)); value(.optionalText(r.appVersion)); value(.optionalText(r.osVersion)); value(.optionalText(r.deviceModel))
        value(.text(r.properties)); value(.bool(r.active)); value(.optionalText(r.inactiveReason)); value(r.inactiveAt.sql)
        value(r.updatedAt.sql); value(r.lastSeenAt.sql); value(r.tokenUpdatedAt.sql)
    }

    /// New installation rows, `rows` in one statement: the mutable columns, then those set once (`id`,
    /// `app_id`, `created_at`). `verb` is `INSERT OR FAIL` for a caller whose transaction is rolled back whole
    /// when a statement fails: SQLite then keeps no statement journal (a copy of every page the statement is
    /// about to change, to undo it alone), which a statement of many rows into a table with unique indexes
    /// otherwise needs.
    static func insertInstallations(rows: Int, verb: String = "INSERT") -> String {
        let row = "(" + Array(repeating: "?", count: mutableColumns.count + 3).joined(separator: ", ") + ")"
        return verb + " INTO installations (" + (mutableColumns + ["id", "app_id", "created_at"]).joined(separator: ", ") + ") VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }
    static let insertInstallation = insertInstallations(rows: 1)

    static func insertValues(_ r: InstallationRecord) -> [SQLValue] {
        var values: [SQLValue] = []
        values.reserveCapacity(mutableColumns.count + 3)
        insertValues(r) { values.append($0) }
        return values
    }

    static func insertValues(_ r: InstallationRecord, _ value: (SQLValue) -> Void) {
        mutableValues(r, value)
        value(.text(r.id)); value(.text(r.appID)); value(r.createdAt.sql)
    }

    /// Every mutable column of the row with `seq` (bound last).
    static let updateInstallation = "UPDATE installations SET " + mutableColumns.map { "\($0) = ?" }.joined(separator: ", ")
        + " WHERE seq = ?"

    /// An import batch with the outcome of upserting each draft in order, in the caller's transaction. Drafts
    /// that match no stored installation and share no installation id or token with an earlier draft of
    /// the batch (a first import: all of them) go in by prepared inserts of the rows encoded ahead
    /// (`SQLiteImportRows.insert`, several rows per statement), found new by two indexed look-ups for the whole batch; the others take
    /// the one-by-one upsert, in the file's order. The rows' parameters were encoded ahead, sized from the
    /// batch (a batch's array of records once grew by doubling to megabytes on the writer's thread, and
    /// those freed large blocks were much of the import's peak memory).
    static func importBatch(_ batch: PreparedImport, rows: SQLiteImportRows, _ db: SQLiteConnection) throws -> (created: Int, updated: Int) {
        let takenIDs = Set(try db.all("""
            SELECT installation_id FROM installations WHERE app_id = ?1 AND installation_id IN (SELECT value FROM json_each(?2))
            """, [.text(batch.appID), rows.installationIDs]) { $0.text(0) })
        let takenTokens = Set(try db.all("""
            SELECT device_token FROM installations WHERE app_id = ?1 AND device_token IN (SELECT value FROM json_each(?2))
            """, [.text(batch.appID), rows.tokens]) { $0.text(0) })
        var created = 0, updated = 0
        // New drafts in a row go in together; the run is written before a draft that may update one of them.
        var newRun = 0..<0
        for (i, (draft, newID)) in zip(batch.drafts, batch.newIDs).enumerated() {
            if rows.firstOfBatch[i], takenIDs.isEmpty || !(draft.installationID.map(takenIDs.contains) ?? false),
               takenTokens.isEmpty || !(draft.deviceToken.map(takenTokens.contains) ?? false) {
                newRun = newRun.isEmpty ? i..<i + 1 : newRun.lowerBound..<i + 1
                continue
            }
            try rows.insert(newRun, db)
            created += newRun.count
            newRun = 0..<0
            let (_, isNew) = try upsert(appID: batch.appID, draft: draft, match: .installationIDOrToken, newID: newID, now: batch.now,
                                        db, loadTags: false)
            if isNew { created += 1 } else { updated += 1 }
        }
        try rows.insert(newRun, db)
        created += newRun.count
        return (created, updated)
    }
}
