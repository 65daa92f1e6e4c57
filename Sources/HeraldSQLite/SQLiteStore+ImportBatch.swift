import Foundation
import HeraldStore

extension SQLiteStore {
    /// The columns an installation row is inserted with, in the order of `insertValues`.
    static let insertColumns = """
        installation_id, device_token, environment, topic, alias, user_id, locale, time_zone, badge, app_version,
        os_version, device_model, properties, active, inactive_reason, inactive_at, updated_at, last_seen_at,
        token_updated_at, id, app_id, created_at
        """

    static func insertValues(_ r: InstallationRecord) -> [SQLValue] {
        [.text(r.installationID), .optionalText(r.deviceToken), .text(r.environment), .optionalText(r.topic),
         .optionalText(r.alias), .optionalText(r.userID), .optionalText(r.locale), .optionalText(r.timeZone), .int(r.badge),
         .optionalText(r.appVersion), .optionalText(r.osVersion), .optionalText(r.deviceModel), .text(r.properties),
         .bool(r.active), .optionalText(r.inactiveReason), r.inactiveAt.sql, r.updatedAt.sql, r.lastSeenAt.sql,
         r.tokenUpdatedAt.sql, .text(r.id), .text(r.appID), r.createdAt.sql]
    }

    /// Rows per multi-row `INSERT`: 64 installations are 1,408 parameters, tags 3 each.
    static let installationsPerInsert = 64
    static let tagsPerInsert = 300

    /// An import batch with the outcome of upserting each draft in order, in the caller's transaction. Drafts
    /// that match no stored installation and share no installation id or token with an earlier draft of
    /// the batch (a first import: all of them) go in by multi-row inserts, 64 rows a statement, found new by
    /// two indexed look-ups for the whole batch; the others take the one-by-one upsert.
    static func importBatch(appID: String, drafts: [InstallationDraft], newIDs: [String], now: Date,
                            _ db: SQLiteConnection) throws -> (created: Int, updated: Int) {
        let takenIDs = Set(try db.all("""
            SELECT installation_id FROM installations WHERE app_id = ?1 AND installation_id IN (SELECT value FROM json_each(?2))
            """, [.text(appID), jsonArray(drafts.compactMap(\.installationID))]) { $0.text(0) })
        let takenTokens = Set(try db.all("""
            SELECT device_token FROM installations WHERE app_id = ?1 AND device_token IN (SELECT value FROM json_each(?2))
            """, [.text(appID), jsonArray(drafts.compactMap(\.deviceToken))]) { $0.text(0) })
        var seenIDs = Set<String>(), seenTokens = Set<String>()
        var fresh: [InstallationRecord] = [], freshTags: [[String]?] = []
        var created = 0, updated = 0
        func flush() throws {
            guard !fresh.isEmpty else { return }
            try insertNew(fresh, tags: freshTags, db)
            created += fresh.count
            fresh.removeAll(keepingCapacity: true)
            freshTags.removeAll(keepingCapacity: true)
        }
        for (draft, newID) in zip(drafts, newIDs) {
            let iidFree = draft.installationID.map { !takenIDs.contains($0) && seenIDs.insert($0).inserted } ?? true
            let tokenFree = draft.deviceToken.map { !takenTokens.contains($0) && seenTokens.insert($0).inserted } ?? true
            if iidFree && tokenFree {
                var r = InstallationRecord.new(appID: appID, installationID: draft.installationID ?? newID, id: newID,
                                               createdAt: draft.createdAt, now: now)
                r.apply(draft, now: now)
                fresh.append(r)
                freshTags.append(draft.tags)
                continue
            }
            // In order: an earlier draft of the batch may be what this one updates.
            try flush()
            let (_, isNew) = try upsert(appID: appID, draft: draft, match: .installationIDOrToken, newID: newID, now: now, db, loadTags: false)
            if isNew { created += 1 } else { updated += 1 }
        }
        try flush()
        return (created, updated)
    }

    /// New installations and their tags, by multi-row inserts.
    static func insertNew(_ records: [InstallationRecord], tags: [[String]?], _ db: SQLiteConnection) throws {
        var tagRows: [SQLValue] = []
        for start in stride(from: 0, to: records.count, by: installationsPerInsert) {
            let chunk = records[start..<min(start + installationsPerInsert, records.count)]
            let placeholders = "(" + Array(repeating: "?", count: 22).joined(separator: ",") + ")"
            let sql = "INSERT INTO installations (\(insertColumns)) VALUES "
                + Array(repeating: placeholders, count: chunk.count).joined(separator: ",") + " RETURNING id, seq"
            var seqByID: [String: Int64] = [:]
            try db.query(sql, chunk.flatMap(insertValues)) { seqByID[$0.text(0)] = $0.int64(1) }
            for i in chunk.indices {
                guard let list = tags[i], let seq = seqByID[records[i].id] else { continue }
                for tag in Set(list) { tagRows += [.text(records[i].appID), .text(tag), .integer(seq)] }
            }
        }
        for start in stride(from: 0, to: tagRows.count, by: 3 * tagsPerInsert) {
            let chunk = tagRows[start..<min(start + 3 * tagsPerInsert, tagRows.count)]
            let sql = "INSERT INTO installation_tags (app_id, tag, seq) VALUES "
                + Array(repeating: "(?,?,?)", count: chunk.count / 3).joined(separator: ",")
            try db.execute(sql, Array(chunk))
        }
    }
}
