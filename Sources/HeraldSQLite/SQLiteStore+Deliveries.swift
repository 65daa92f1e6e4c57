import Foundation
import HeraldStore

extension SQLiteStore {
    /// One statement per audience source; the tag and environment conditions are the same in each.
    /// ?1 app, ?2 after seq, ?3 environment, ?4 tags any, ?5 tags all, ?6 tags none, ?7 source values, ?8 limit.
    static let audienceConditions = """
        i.app_id = ?1 AND i.seq > ?2 AND i.active = 1 AND i.device_token IS NOT NULL
          AND (?3 IS NULL OR i.environment = ?3)
          AND (?4 IS NULL OR EXISTS (SELECT 1 FROM installation_tags t WHERE t.app_id = ?1 AND t.seq = i.seq
                                     AND t.tag IN (SELECT value FROM json_each(?4))))
          AND (?5 IS NULL OR (SELECT count(*) FROM installation_tags t WHERE t.app_id = ?1 AND t.seq = i.seq
                              AND t.tag IN (SELECT value FROM json_each(?5))) = json_array_length(?5))
          AND (?6 IS NULL OR NOT EXISTS (SELECT 1 FROM installation_tags t WHERE t.app_id = ?1 AND t.seq = i.seq
                                         AND t.tag IN (SELECT value FROM json_each(?6))))
        """
    static let audienceSelect = "SELECT i.seq, i.id, i.device_token, i.environment, i.locale, i.time_zone, i.app_version, i.properties FROM installations i WHERE "
    /// Whole-app audiences walk the (app, seq) index in order: each page costs its own size, never the app's.
    static let audienceAll = "SELECT i.seq, i.id, i.device_token, i.environment, i.locale, i.time_zone, i.app_version, i.properties FROM installations i INDEXED BY installations_app_seq WHERE "
        + audienceConditions + " AND ?7 IS NULL ORDER BY i.seq LIMIT ?8"
    // Listed targets look their rows up through the index on what is listed. Left to itself, SQLite walks
    // (app, seq) for the ORDER BY instead, which costs the whole app per push: 0.7 s per single-token
    // push with 1,000,000 installations (BENCHMARKS.md row 6).
    static func audienceSelect(indexedBy index: String) -> String {
        "SELECT i.seq, i.id, i.device_token, i.environment, i.locale, i.time_zone, i.app_version, i.properties FROM installations i INDEXED BY \(index) WHERE "
    }
    static let audienceTokens = audienceSelect(indexedBy: "installations_app_token") + audienceConditions
        + " AND i.device_token IN (SELECT value FROM json_each(?7)) ORDER BY i.seq LIMIT ?8"
    static let audienceIDs = audienceSelect + audienceConditions + """
         AND i.seq IN (SELECT seq FROM installations WHERE +app_id = ?1 AND id IN (SELECT value FROM json_each(?7))
                       UNION SELECT seq FROM installations WHERE app_id = ?1 AND installation_id IN (SELECT value FROM json_each(?7)))
         ORDER BY i.seq LIMIT ?8
        """
    static let audienceAliases = audienceSelect(indexedBy: "installations_app_alias") + audienceConditions
        + " AND i.alias IN (SELECT value FROM json_each(?7)) ORDER BY i.seq LIMIT ?8"
    static let audienceUsers = audienceSelect(indexedBy: "installations_app_user") + audienceConditions
        + " AND i.user_id IN (SELECT value FROM json_each(?7)) ORDER BY i.seq LIMIT ?8"

    static func audiencePage(appID: String, selector s: AudienceSelector, after: Int64, limit: Int, _ db: SQLiteConnection) throws -> [AudienceMember] {
        var sql: String
        let values: [String]?
        switch s.source {
        case .all: (sql, values) = (audienceAll, nil)
        case .tokens(let v): (sql, values) = (audienceTokens, v)
        case .installationIDs(let v): (sql, values) = (audienceIDs, v)
        case .aliases(let v): (sql, values) = (audienceAliases, v)
        case .userIDs(let v): (sql, values) = (audienceUsers, v)
        }
        var arguments: [SQLValue] = [.text(appID), .integer(after), .optionalText(s.environment), jsonArray(s.tagsAny),
                                     jsonArray(s.tagsAll), jsonArray(s.tagsNone), jsonArray(values), .int(limit)]
        if let tag = requiredTag(s) {
            (sql, arguments) = (audienceByTag, arguments + [.text(tag)])
            // The join walks the rows of `tag` only, so a condition that asks for that one tag is already met.
            // Checked again, it cost each member a JSON parse and an index probe: a third of a tag push's read.
            if s.tagsAny == [tag] { arguments[3] = .null }
            if s.tagsAll == [tag] { arguments[4] = .null }
        }
        return try db.all(sql, arguments) { r in
            AudienceMember(seq: r.int64(0), id: r.text(1), deviceToken: r.text(2), environment: r.text(3),
                           locale: r.optionalText(4), timeZone: r.optionalText(5), appVersion: r.optionalText(6), properties: r.text(7))
        }
    }

    /// The listed tokens, ids, aliases or user ids that match no active installation with a token (at most
    /// `limit`), so a caller learns which targets were not reached without the push failing.
    public func unresolvedTargets(appID: String, source: AudienceSelector.Source, limit: Int) async throws -> [String] {
        let sql: String, values: [String]
        switch source {
        case .all: return []
        case .tokens(let v):
            (sql, values) = ("""
                SELECT value FROM json_each(?2) WHERE value NOT IN (SELECT device_token FROM installations
                WHERE app_id = ?1 AND active = 1 AND device_token IN (SELECT value FROM json_each(?2))) LIMIT ?3
                """, v)
        case .installationIDs(let v):
            (sql, values) = ("""
                SELECT value FROM json_each(?2) WHERE value NOT IN (SELECT id FROM installations WHERE app_id = ?1 AND active = 1
                AND device_token IS NOT NULL AND id IN (SELECT value FROM json_each(?2)))
                AND value NOT IN (SELECT installation_id FROM installations WHERE app_id = ?1 AND active = 1
                AND device_token IS NOT NULL AND installation_id IN (SELECT value FROM json_each(?2))) LIMIT ?3
                """, v)
        case .aliases(let v):
            (sql, values) = ("""
                SELECT value FROM json_each(?2) WHERE value NOT IN (SELECT alias FROM installations WHERE app_id = ?1 AND active = 1
                AND device_token IS NOT NULL AND alias IN (SELECT value FROM json_each(?2))) LIMIT ?3
                """, v)
        case .userIDs(let v):
            (sql, values) = ("""
                SELECT value FROM json_each(?2) WHERE value NOT IN (SELECT user_id FROM installations WHERE app_id = ?1 AND active = 1
                AND device_token IS NOT NULL AND user_id IN (SELECT value FROM json_each(?2))) LIMIT ?3
                """, v)
        }
        return try await database.read { try $0.all(sql, [.text(appID), jsonArray(values), .int(limit)]) { $0.text(0) } }
    }

    /// Reads one page of the audience (for dry runs and counts).
    public func audience(appID: String, selector: AudienceSelector, after: Int64, limit: Int) async throws -> [AudienceMember] {
        try await database.read { try Self.audiencePage(appID: appID, selector: selector, after: after, limit: limit, $0) }
    }

    /// One fan-out step in one transaction: reads the next page of the audience after the push's cursor,
    /// lets `plan` choose which members get a delivery (and their variant and time), applies the badge change
    /// to each of them atomically, inserts the delivery rows and advances the cursor. A crash between steps
    /// loses nothing and duplicates nothing: the cursor moves with the rows.
    ///
    /// Up to `claim` rows that are already due are inserted in flight and returned, as `claimDeliveries`
    /// would have returned them: a first attempt then costs one write to create its row and one to record its
    /// outcome, rather than three.
    public func fanOut(pushID: String, selector: AudienceSelector, badge: BadgeChange?, limit: Int, claim: Int, now: Date,
                       plan: @escaping @Sendable ([AudienceMember]) -> [PlannedDelivery]) async throws -> FanOutProgress {
        try await database.write { db in
            guard let p = try db.first("SELECT \(Self.pushColumns) FROM pushes WHERE id = ?", [.text(pushID)], Self.push),
                  p.status == .queued || p.status == .sending, !p.fanoutDone else {
                return FanOutProgress(scanned: 0, planned: 0, done: true, claimed: [])
            }
            let members = try Self.audiencePage(appID: p.appID, selector: selector, after: p.fanoutCursor, limit: limit, db)
            let planned = plan(members)
            var claimed: [ClaimedDelivery] = []
            claimed.reserveCapacity(min(claim, planned.count))
            for d in planned {
                var badgeValue: Int?
                switch badge {
                case .set(let n)?:
                    try db.execute("UPDATE installations SET badge = ? WHERE seq = ?", [.int(n), .integer(d.seq)])
                    badgeValue = n
                case .add(let n)?:
                    badgeValue = try db.first("UPDATE installations SET badge = max(0, badge + ?) WHERE seq = ? RETURNING badge",
                                              [.int(n), .integer(d.seq)]) { $0.int(0) }
                case nil: break
                }
                let inFlight = claimed.count < claim && d.notBefore <= now
                try db.execute("""
                    INSERT INTO deliveries (push_id, seq, installation_id, device_token, environment, variant, badge, state, not_before, updated_at, claimed_by)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.text(pushID), .integer(d.seq), .text(d.installationID), .text(d.deviceToken), .text(d.environment),
                          .text(d.variant), .optionalInt(badgeValue), .bool(inFlight), d.notBefore.sql, now.sql,
                          inFlight ? .text(self.node) : .null])
                if inFlight {
                    claimed.append(ClaimedDelivery(id: db.lastInsertRowID, seq: d.seq, installationID: d.installationID, deviceToken: d.deviceToken,
                                                   environment: d.environment, variant: d.variant, badge: badgeValue, attempts: 0))
                }
            }
            let done = members.count < limit
            try db.execute("""
                UPDATE pushes SET fanout_cursor = ?, fanout_done = ?, targeted = targeted + ?, status = 'sending', updated_at = ? WHERE id = ?
                """, [.integer(members.last?.seq ?? p.fanoutCursor), .bool(done), .int(planned.count), now.sql, .text(pushID)])
            return FanOutProgress(scanned: members.count, planned: planned.count, done: done, claimed: claimed)
        }
    }

    /// Claims up to `limit` due pending deliveries of a push, moving them to in-flight.
    public func claimDeliveries(pushID: String, limit: Int, now: Date) async throws -> [ClaimedDelivery] {
        try await database.write { db in
            try db.all("""
                UPDATE deliveries SET state = 1, updated_at = ?2, claimed_by = ?4
                WHERE id IN (SELECT id FROM deliveries WHERE push_id = ?1 AND state = 0 AND not_before <= ?2 ORDER BY not_before, id LIMIT ?3)
                RETURNING id, seq, installation_id, device_token, environment, variant, badge, attempts
                """, [.text(pushID), now.sql, .int(limit), .text(self.node)]) { r in
                ClaimedDelivery(id: r.int64(0), seq: r.int64(1), installationID: r.text(2), deviceToken: r.text(3),
                                environment: r.text(4), variant: r.text(5), badge: r.optionalInt(6), attempts: r.int(7))
            }.sorted { $0.id < $1.id }
        }
    }

    /// The earliest time a pending delivery of the push becomes due, if any.
    public func nextDue(pushID: String) async throws -> Date? {
        try await database.read { try $0.first("SELECT min(not_before) FROM deliveries WHERE push_id = ? AND state = 0", [.text(pushID)]) { $0.optionalDate(0) } ?? nil }
    }

    /// Records the outcomes of a batch and updates the push's counters, all in one transaction.
    public func recordOutcomes(pushID: String, outcomes: [DeliveryOutcome], now: Date) async throws -> (sent: Int, failed: Int, retired: Int) {
        try await database.write { db in
            var events = SQLiteOutboxRows(try SQLiteOutbox.forPush(pushID, db))
            var sent = 0, failed = 0, retired = 0
            var reasons: [String: Int] = [:]
            // Most of a batch is sent: those rows change in one statement. Only a delivery still in flight takes
            // an outcome: a late answer after shutdown released it is ignored.
            var sentIDs: [Int: [Int64]] = [:]
            for o in outcomes {
                switch o.kind {
                case .sent(let status):
                    sentIDs[status, default: []].append(o.deliveryID)
                case .failed(let reason, let status, let retire, let timestamp):
                    guard try db.execute("UPDATE deliveries SET state = 3, attempts = attempts + 1, status = ?, reason = ?, updated_at = ? WHERE id = ? AND state = 1",
                                         [.optionalInt(status), .text(reason), now.sql, .integer(o.deliveryID)]) > 0 else { continue }
                    failed += 1
                    reasons[reason, default: 0] += 1
                    try Self.recordDeliveryFailed(&events, pushID: pushID, deliveryID: o.deliveryID, installationID: nil, token: o.deviceToken,
                                                  reason: reason, status: status, now: now, db)
                    if retire, try Self.retire(seq: o.seq, token: o.deviceToken, reason: reason, timestamp: timestamp, now: now, db) > 0 {
                        retired += 1
                        try Self.recordRetired(&events, seq: o.seq, token: o.deviceToken, reason: reason, timestamp: timestamp, pushID: pushID, now: now, db)
                    }
                case .retry(let at, let reason, let status):
                    try db.execute("UPDATE deliveries SET state = 0, attempts = attempts + 1, not_before = ?, status = ?, reason = ?, updated_at = ? WHERE id = ? AND state = 1",
                                   [at.sql, .optionalInt(status), .text(reason), now.sql, .integer(o.deliveryID)])
                case .requeue:
                    try db.execute("UPDATE deliveries SET state = 0, updated_at = ? WHERE id = ? AND state = 1", [now.sql, .integer(o.deliveryID)])
                }
            }
            try events.insert(db)
            for (status, ids) in sentIDs {
                sent += try db.execute("""
                    UPDATE deliveries SET state = 2, attempts = attempts + 1, status = ?, reason = NULL, updated_at = ?
                    WHERE id IN (SELECT value FROM json_each(?)) AND state = 1
                    """, [.int(status), now.sql, jsonArray(ids)])
            }
            try Self.countFailures(pushID: pushID, reasons, db)
            try db.execute("UPDATE pushes SET sent = sent + ?, failed = failed + ?, retired = retired + ?, updated_at = ? WHERE id = ?",
                           [.int(sent), .int(failed), .int(retired), now.sql, .text(pushID)])
            return (sent, failed, retired)
        }
    }

    /// Writes a fan-out page that was read without writing (`audience`) and then sent: each member's row
    /// is inserted once, with its outcome (or pending, if it was not attempted), and the push's cursor
    /// and counters move, all in one transaction. A first attempt thus costs one write. The page must
    /// start where the push's cursor is (`after`): a page already written, or one read before a page that
    /// was never written, changes nothing and returns false; its members are read and sent again (with
    /// the same apns-ids), as in-flight rows are after a crash.
    ///
    /// Rows not attempted, or left for a retry, of a push that has meanwhile ended are written as cancelled.
    /// `badge` is a push's badge value to store on each installation (a set, never an increment: those are
    /// applied when the page is read, in `fanOut`).
    public func recordPage(pushID: String, after: Int64, cursor: Int64, done: Bool, badge: Int?, rows: [PageDelivery], now: Date) async throws -> Bool {
        let written = try await writePage(pushID: pushID, after: after, cursor: cursor, done: done, badge: badge, rows: rows, now: now)
        // The last page: nothing reads the push's journal again (a failure leaves it to `sweepJournal`).
        if written && done { try? await forgetJournal(pushID: pushID) }
        return written
    }

    /// Foreign keys of a large page are checked here rather than by SQLite per row (~2% of a fan-out's CPU):
    /// the push is read first, and each row references it; the events reference the webhooks read in the
    /// same transaction. Nothing is deleted, so no cascade is missed.
    private func writePage(pushID: String, after: Int64, cursor: Int64, done: Bool, badge: Int?, rows: [PageDelivery], now: Date) async throws -> Bool {
        let page = SQLitePageRows(pushID: pushID, badge: badge, rows: rows, now: now)
        return try await database.write(selfCheckedRows: rows.count) { db in
            var encoded = page
            guard let p = try db.first("SELECT \(Self.pushColumns) FROM pushes WHERE id = ?", [.text(pushID)], Self.push),
                  !p.fanoutDone, p.fanoutCursor == after else { return false }
            let cancelled = p.status.isFinal ? encoded.cancelPending() : 0
            var events = SQLiteOutboxRows(try SQLiteOutbox.forApp(p.appID, db))
            var retired = 0
            for index in rows.indices {   // read in place, not copied out of the array (as in `SQLitePageRows`)
                if case let .failed(reason, status, retire, timestamp)? = rows[index].outcome {
                    let d = rows[index].planned
                    try Self.recordDeliveryFailed(&events, pushID: pushID, deliveryID: nil, installationID: d.installationID, token: d.deviceToken,
                                                  reason: reason, status: status, now: now, db)
                    if retire, try Self.retire(seq: d.seq, token: d.deviceToken, reason: reason, timestamp: timestamp, now: now, db) > 0 {
                        retired += 1
                        try Self.recordRetired(&events, seq: d.seq, installationID: d.installationID, token: d.deviceToken, reason: reason,
                                               timestamp: timestamp, pushID: pushID, now: now, db)
                    }
                }
                if let badge {
                    try db.execute("UPDATE installations SET badge = ? WHERE seq = ?", [.int(badge), .integer(rows[index].planned.seq)])
                }
            }
            try events.insert(db)
            try encoded.insert(db)
            try Self.countFailures(pushID: pushID, encoded.reasons, db)
            try db.execute("""
                UPDATE pushes SET fanout_cursor = ?, fanout_done = ?, targeted = targeted + ?, sent = sent + ?, failed = failed + ?,
                  retired = retired + ?, cancelled = cancelled + ?, status = CASE status WHEN 'queued' THEN 'sending' ELSE status END,
                  updated_at = ? WHERE id = ?
                """, [.integer(cursor), .bool(done), .int(rows.count), .int(encoded.sent), .int(encoded.failed), .int(retired), .int(cancelled),
                      now.sql, .text(pushID)])
            return true
        }
    }

    /// Retires an installation APNs said is gone. A token registered after APNs' "last valid" time belongs
    /// to a device that came back, and stays.
    private static func retire(seq: Int64, token: String, reason: String, timestamp: Date?, now: Date, _ db: SQLiteConnection) throws -> Int {
        try db.execute("""
            UPDATE installations SET active = 0, inactive_reason = ?, inactive_at = ?, updated_at = ?
            WHERE seq = ? AND device_token = ? AND active = 1 AND token_updated_at <= ?
            """, [.text(reason), now.sql, now.sql, .integer(seq), .text(token), (timestamp ?? now).sql])
    }

    private static func countFailures(pushID: String, _ reasons: [String: Int], _ db: SQLiteConnection) throws {
        for (reason, count) in reasons {
            try db.execute("""
                INSERT INTO push_failures (push_id, reason, count) VALUES (?, ?, ?)
                ON CONFLICT (push_id, reason) DO UPDATE SET count = count + excluded.count
                """, [.text(pushID), .text(reason), .int(count)])
        }
    }

    /// Returns every in-flight delivery to pending: after a crash or at shutdown, nothing claimed is lost.
    public func releaseInFlight() async throws -> Int {
        try await database.write { try $0.execute("UPDATE deliveries SET state = 0 WHERE state = 1") }
    }

    public func deliveries(pushID: String, state: DeliveryState?, afterID: Int64, limit: Int) async throws -> [DeliveryRecord] {
        try await database.read { db in
            try db.all("""
                SELECT id, installation_id, state, attempts, status, reason, badge, updated_at FROM deliveries
                WHERE push_id = ?1 AND id > ?2 AND (?4 IS NULL OR state = ?4) ORDER BY id LIMIT ?3
                """, [.text(pushID), .integer(afterID), .int(limit), state.map { .int($0.rawValue) } ?? .null]) { r in
                DeliveryRecord(id: r.int64(0), installationID: r.text(1), state: DeliveryState(rawValue: r.int(2)) ?? .failed,
                               attempts: r.int(3), status: r.optionalInt(4), reason: r.optionalText(5),
                               badge: r.optionalInt(6), updatedAt: r.date(7))
            }
        }
    }

    public func pendingDeliveryCount() async throws -> Int {
        try await database.read { try $0.first("SELECT coalesce(sum(targeted - sent - failed - cancelled), 0) FROM pushes WHERE status IN ('queued', 'sending')") { $0.int(0) } ?? 0 }
    }
}
