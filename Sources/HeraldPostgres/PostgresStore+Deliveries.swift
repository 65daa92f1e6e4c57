import Foundation
import HeraldStore

extension PostgresStore {
    /// How a fan-out step and a page write hold their push's row: against each other, a cancellation and a
    /// deletion (`FOR UPDATE`), but not against the delivery journal, whose rows reference the push: a
    /// foreign key's check takes `FOR KEY SHARE` of the referenced row, which `FOR UPDATE` blocks and this
    /// does not. With `FOR UPDATE` each journal commit waited for the page being written, the wait the
    /// journal exists to avoid (`Lock:transactionid` in about half of row 12's samples during a push).
    static let fanOutRowLock = "FOR NO KEY UPDATE"

    /// One page of the audience after `after` in `seq` order. The statement holds only the conditions the
    /// selector sets: a tag condition written as `$n IS NULL OR EXISTS (...)` cannot become a join, so the
    /// planner ran it as a hashed subplan that read every tag row of the table for each page (600 ms a page
    /// at 200,000 installations, against 3 ms as a merge semi-join along `seq`). At most 5 sources times 16
    /// combinations of conditions: each is prepared once per connection.
    static func audiencePage(appID: String, selector s: AudienceSelector, after: Int64, limit: Int, _ db: PostgresConnection) throws -> [AudienceMember] {
        var values: [SQLValue] = [.text(appID), .integer(after)]
        func bind(_ value: SQLValue) -> String {
            values.append(value)
            return "$\(values.count)"
        }
        var sql = """
            SELECT i.seq, i.id, i.device_token, i.environment, i.locale, i.time_zone, i.app_version, i.properties
            FROM installations i WHERE i.app_id = $1 AND i.seq > $2 AND i.active AND i.device_token IS NOT NULL
            """
        if let environment = s.environment { sql += " AND i.environment = \(bind(.text(environment)))" }
        // `t.seq > $2` lets the tag side of the join start at the cursor too.
        let tagRows = "FROM installation_tags t WHERE t.app_id = $1 AND t.seq = i.seq AND t.seq > $2"
        if let tags = s.tagsAny { sql += " AND EXISTS (SELECT 1 \(tagRows) AND t.tag = ANY(\(bind(PGArray.text(tags)))::text[]))" }
        if let tags = s.tagsAll {
            let p = bind(PGArray.text(tags))
            sql += " AND (SELECT count(*) \(tagRows) AND t.tag = ANY(\(p)::text[])) = cardinality(\(p)::text[])"
        }
        if let tags = s.tagsNone { sql += " AND NOT EXISTS (SELECT 1 \(tagRows) AND t.tag = ANY(\(bind(PGArray.text(tags)))::text[]))" }
        switch s.source {
        case .all: break
        case .tokens(let v): sql += " AND i.device_token = ANY(\(bind(PGArray.text(v)))::text[])"
        case .installationIDs(let v):
            let p = bind(PGArray.text(v))
            sql += """
                 AND i.seq IN (SELECT seq FROM installations WHERE app_id = $1 AND id = ANY(\(p)::text[])
                               UNION SELECT seq FROM installations WHERE app_id = $1 AND installation_id = ANY(\(p)::text[]))
                """
        case .aliases(let v): sql += " AND i.alias = ANY(\(bind(PGArray.text(v)))::text[])"
        case .userIDs(let v): sql += " AND i.user_id = ANY(\(bind(PGArray.text(v)))::text[])"
        }
        sql += " ORDER BY i.seq LIMIT \(bind(.int(limit)))"
        return try db.all(sql, values) { r in
            AudienceMember(seq: r.int64(0), id: r.text(1), deviceToken: r.text(2), environment: r.text(3),
                           locale: r.optionalText(4), timeZone: r.optionalText(5), appVersion: r.optionalText(6), properties: r.text(7))
        }
    }

    /// The listed tokens, ids, aliases or user ids that match no active installation with a token (at most
    /// `limit`), in the order listed, so a caller learns which targets were not reached without the push failing.
    public func unresolvedTargets(appID: String, source: AudienceSelector.Source, limit: Int) async throws -> [String] {
        let match: String, values: [String]
        switch source {
        case .all: return []
        case .tokens(let v): (match, values) = ("i.device_token = u.value", v)
        case .installationIDs(let v): (match, values) = ("(i.id = u.value OR i.installation_id = u.value)", v)
        case .aliases(let v): (match, values) = ("i.alias = u.value", v)
        case .userIDs(let v): (match, values) = ("i.user_id = u.value", v)
        }
        let sql = """
            SELECT u.value FROM unnest($2::text[]) WITH ORDINALITY AS u(value, n)
            WHERE NOT EXISTS (SELECT 1 FROM installations i WHERE i.app_id = $1 AND i.active AND i.device_token IS NOT NULL AND \(match))
            ORDER BY u.n LIMIT $3
            """
        return try await database.read { try $0.all(sql, [.text(appID), PGArray.text(values), .int(limit)]) { $0.text(0) } }
    }

    /// Reads one page of the audience (for dry runs and counts).
    public func audience(appID: String, selector: AudienceSelector, after: Int64, limit: Int) async throws -> [AudienceMember] {
        try await database.read { try Self.audiencePage(appID: appID, selector: selector, after: after, limit: limit, $0) }
    }

    /// One fan-out step in one transaction, as in `SQLiteStore.fanOut`. The push row is locked first, so
    /// two callers cannot read the same page after the same cursor; the badge change is one statement for
    /// the page (an increment reads back each installation's new value atomically) and the rows go in by
    /// one multi-row insert.
    public func fanOut(pushID: String, selector: AudienceSelector, badge: BadgeChange?, limit: Int, claim: Int, now: Date,
                       plan: @escaping @Sendable ([AudienceMember]) -> [PlannedDelivery]) async throws -> FanOutProgress {
        try await database.write { db in
            guard let p = try db.first("SELECT \(Self.pushColumns) FROM pushes WHERE id = $1 \(Self.fanOutRowLock)", [.text(pushID)], Self.push),
                  p.status == .queued || p.status == .sending, !p.fanoutDone else {
                return FanOutProgress(scanned: 0, planned: 0, done: true, claimed: [])
            }
            let members = try Self.audiencePage(appID: p.appID, selector: selector, after: p.fanoutCursor, limit: limit, db)
            let planned = plan(members)
            var badges: [Int64: Int] = [:]
            let seqs = planned.map(\.seq)
            switch badge {
            case .set(let n)?:
                try db.execute("UPDATE installations SET badge = $1 WHERE seq = ANY($2::bigint[])", [.int(n), PGArray.int(seqs)])
                for s in seqs { badges[s] = n }
            case .add(let n)?:
                for (seq, value) in try db.all("UPDATE installations SET badge = greatest(0, badge + $1) WHERE seq = ANY($2::bigint[]) RETURNING seq, badge",
                                               [.int(n), PGArray.int(seqs)], { ($0.int64(0), $0.int(1)) }) {
                    badges[seq] = value
                }
            case nil: break
            }
            var inFlight: [Bool] = []
            inFlight.reserveCapacity(planned.count)
            var claiming = 0
            for d in planned {
                let due = claiming < claim && d.notBefore <= now
                if due { claiming += 1 }
                inFlight.append(due)
            }
            var claimed: [ClaimedDelivery] = []
            if !planned.isEmpty {
                let ids = try db.all("""
                    INSERT INTO deliveries (push_id, seq, installation_id, device_token, environment, variant, badge, state, not_before, updated_at, claimed_by)
                    SELECT $1, r.seq, r.installation_id, r.device_token, r.environment, r.variant, r.badge, r.state, r.not_before, $9,
                           CASE WHEN r.state = 1 THEN $11::text END
                    FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::smallint[], $10::float8[])
                      AS r(seq, installation_id, device_token, environment, variant, badge, state, not_before)
                    RETURNING seq, id
                    """, [.text(pushID), PGArray.int(seqs), PGArray.text(planned.map { Optional($0.installationID) }),
                          PGArray.text(planned.map { Optional($0.deviceToken) }), PGArray.text(planned.map { Optional($0.environment) }),
                          PGArray.text(planned.map { Optional($0.variant) }), PGArray.int(planned.map { badges[$0.seq].map(Int64.init) }),
                          PGArray.int(inFlight.map { $0 ? Int64(1) : 0 }), now.pg,
                          PGArray.double(planned.map { $0.notBefore.timeIntervalSince1970 }), .text(self.node)]) {
                    ($0.int64(0), $0.int64(1))
                }
                // Rows are matched to their ids by installation (one row per installation and page), not by
                // the order RETURNING happens to give.
                let idBySeq = Dictionary(ids, uniquingKeysWith: { a, _ in a })
                for (d, isInFlight) in zip(planned, inFlight) where isInFlight {
                    claimed.append(ClaimedDelivery(id: idBySeq[d.seq] ?? 0, seq: d.seq, installationID: d.installationID, deviceToken: d.deviceToken,
                                                   environment: d.environment, variant: d.variant, badge: badges[d.seq], attempts: 0))
                }
            }
            let done = members.count < limit
            try db.execute("""
                UPDATE pushes SET fanout_cursor = $1, fanout_done = $2, targeted = targeted + $3, status = 'sending', updated_at = $4 WHERE id = $5
                """, [.integer(members.last?.seq ?? p.fanoutCursor), .bool(done), .int(planned.count), now.pg, .text(pushID)])
            return FanOutProgress(scanned: members.count, planned: planned.count, done: done, claimed: claimed)
        }
    }

    /// Claims up to `limit` due pending deliveries of a push, moving them to in-flight. Rows another
    /// transaction is claiming are skipped, not waited for.
    public func claimDeliveries(pushID: String, limit: Int, now: Date) async throws -> [ClaimedDelivery] {
        try await database.write { db in
            try db.all("""
                UPDATE deliveries SET state = 1, updated_at = $2, claimed_by = $4
                WHERE id IN (SELECT id FROM deliveries WHERE push_id = $1 AND state = 0 AND not_before <= $2
                             ORDER BY not_before, id LIMIT $3 FOR UPDATE SKIP LOCKED)
                RETURNING id, seq, installation_id, device_token, environment, variant, badge, attempts
                """, [.text(pushID), now.pg, .int(limit), .text(self.node)]) { r in
                ClaimedDelivery(id: r.int64(0), seq: r.int64(1), installationID: r.text(2), deviceToken: r.text(3),
                                environment: r.text(4), variant: r.text(5), badge: r.optionalInt(6), attempts: r.int(7))
            }.sorted { $0.id < $1.id }
        }
    }

    /// The earliest time a pending delivery of the push becomes due, if any.
    public func nextDue(pushID: String) async throws -> Date? {
        try await database.read { try $0.first("SELECT min(not_before) FROM deliveries WHERE push_id = $1 AND state = 0", [.text(pushID)]) { $0.optionalDate(0) } ?? nil }
    }

    /// Records the outcomes of a batch and updates the push's counters, all in one transaction.
    public func recordOutcomes(pushID: String, outcomes: [DeliveryOutcome], now: Date) async throws -> (sent: Int, failed: Int, retired: Int) {
        try await database.write { db in
            let outbox = try PostgresOutbox.forPush(pushID, db)
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
                    guard try db.execute("UPDATE deliveries SET state = 3, attempts = attempts + 1, status = $1, reason = $2, updated_at = $3 WHERE id = $4 AND state = 1",
                                         [.optionalInt(status), .text(reason), now.pg, .integer(o.deliveryID)]) > 0 else { continue }
                    failed += 1
                    reasons[reason, default: 0] += 1
                    try Self.recordDeliveryFailed(outbox, pushID: pushID, deliveryID: o.deliveryID, installationID: nil, token: o.deviceToken,
                                                  reason: reason, status: status, now: now, db)
                    if retire, try Self.retire(seq: o.seq, token: o.deviceToken, reason: reason, timestamp: timestamp, now: now, db) > 0 {
                        retired += 1
                        try Self.recordRetired(outbox, seq: o.seq, token: o.deviceToken, reason: reason, timestamp: timestamp, pushID: pushID, now: now, db)
                    }
                case .retry(let at, let reason, let status):
                    try db.execute("UPDATE deliveries SET state = 0, attempts = attempts + 1, not_before = $1, status = $2, reason = $3, updated_at = $4 WHERE id = $5 AND state = 1",
                                   [at.pg, .optionalInt(status), .text(reason), now.pg, .integer(o.deliveryID)])
                case .requeue:
                    try db.execute("UPDATE deliveries SET state = 0, updated_at = $1 WHERE id = $2 AND state = 1", [now.pg, .integer(o.deliveryID)])
                }
            }
            for (status, ids) in sentIDs.sorted(by: { $0.key < $1.key }) {
                sent += try db.execute("""
                    UPDATE deliveries SET state = 2, attempts = attempts + 1, status = $1, reason = NULL, updated_at = $2
                    WHERE id = ANY($3::bigint[]) AND state = 1
                    """, [.int(status), now.pg, PGArray.int(ids)])
            }
            try Self.countFailures(pushID: pushID, reasons, db)
            try db.execute("UPDATE pushes SET sent = sent + $1, failed = failed + $2, retired = retired + $3, updated_at = $4 WHERE id = $5",
                           [.int(sent), .int(failed), .int(retired), now.pg, .text(pushID)])
            return (sent, failed, retired)
        }
    }

    /// Writes a fan-out page that was read without writing and then sent, as `SQLiteStore.recordPage` does
    /// (see there for the whole contract), with the push row locked so a page is written once. The rows go
    /// in by one COPY (no array parameters to build and parse).
    public func recordPage(pushID: String, after: Int64, cursor: Int64, done: Bool, badge: Int?, rows: [PageDelivery], now: Date) async throws -> Bool {
        try await database.write { db in
            guard let p = try db.first("SELECT \(Self.pushColumns) FROM pushes WHERE id = $1 \(Self.fanOutRowLock)", [.text(pushID)], Self.push),
                  !p.fanoutDone, p.fanoutCursor == after else { return false }
            let ended = p.status.isFinal
            let outbox = try PostgresOutbox.forApp(p.appID, db)
            var sent = 0, failed = 0, cancelled = 0, retired = 0
            var reasons: [String: Int] = [:]
            var seqs: [Int64] = []
            seqs.reserveCapacity(rows.count)
            var copy = PGCopyRows(reservingBytes: rows.count * 192)
            for row in rows {
                let d = row.planned
                var outcome: (state: DeliveryState, attempts: Int, notBefore: Date, status: Int?, reason: String?) = (.pending, 0, d.notBefore, nil, nil)
                switch row.outcome {
                case nil, .requeue?: break
                case .sent(let status)?:
                    outcome = (.sent, 1, d.notBefore, status, nil)
                    sent += 1
                case let .failed(reason, status, retire, timestamp)?:
                    outcome = (.failed, 1, d.notBefore, status, reason)
                    failed += 1
                    reasons[reason, default: 0] += 1
                    try Self.recordDeliveryFailed(outbox, pushID: pushID, deliveryID: nil, installationID: d.installationID, token: d.deviceToken,
                                                  reason: reason, status: status, now: now, db)
                    if retire, try Self.retire(seq: d.seq, token: d.deviceToken, reason: reason, timestamp: timestamp, now: now, db) > 0 {
                        retired += 1
                        try Self.recordRetired(outbox, seq: d.seq, installationID: d.installationID, token: d.deviceToken, reason: reason,
                                               timestamp: timestamp, pushID: pushID, now: now, db)
                    }
                case let .retry(at, reason, status)?:
                    outcome = (.pending, 1, at, status, reason)
                }
                if ended && outcome.state == .pending {
                    outcome.state = .cancelled
                    cancelled += 1
                }
                seqs.append(d.seq)
                copy.text(pushID); copy.int(d.seq); copy.text(d.installationID); copy.text(d.deviceToken); copy.text(d.environment)
                copy.text(d.variant); copy.int(badge.map(Int64.init)); copy.int(Int64(outcome.state.rawValue))
                copy.int(Int64(outcome.attempts)); copy.double(outcome.notBefore.timeIntervalSince1970)
                copy.int(outcome.status.map(Int64.init)); copy.text(outcome.reason); copy.double(now.timeIntervalSince1970)
                copy.endRow()
            }
            if let badge, !seqs.isEmpty {
                try db.execute("UPDATE installations SET badge = $1 WHERE seq = ANY($2::bigint[])", [.int(badge), PGArray.int(seqs)])
            }
            if !seqs.isEmpty {
                try db.copy("""
                    COPY deliveries (push_id, seq, installation_id, device_token, environment, variant, badge, state, attempts,
                                     not_before, status, reason, updated_at) FROM STDIN
                    """, copy)
            }
            try Self.countFailures(pushID: pushID, reasons, db)
            try db.execute("""
                UPDATE pushes SET fanout_cursor = $1, fanout_done = $2, targeted = targeted + $3, sent = sent + $4, failed = failed + $5,
                  retired = retired + $6, cancelled = cancelled + $7, status = CASE status WHEN 'queued' THEN 'sending' ELSE status END,
                  updated_at = $8 WHERE id = $9
                """, [.integer(cursor), .bool(done), .int(rows.count), .int(sent), .int(failed), .int(retired), .int(cancelled),
                      now.pg, .text(pushID)])
            return true
        }
    }

    /// Retires an installation APNs said is gone. A token registered after APNs' "last valid" time belongs
    /// to a device that came back, and stays.
    private static func retire(seq: Int64, token: String, reason: String, timestamp: Date?, now: Date, _ db: PostgresConnection) throws -> Int {
        try db.execute("""
            UPDATE installations SET active = false, inactive_reason = $1, inactive_at = $2, updated_at = $3
            WHERE seq = $4 AND device_token = $5 AND active AND token_updated_at <= $6
            """, [.text(reason), now.pg, now.pg, .integer(seq), .text(token), (timestamp ?? now).pg])
    }

    private static func countFailures(pushID: String, _ reasons: [String: Int], _ db: PostgresConnection) throws {
        // In key order: two transactions adding to the same reasons then lock those rows in the same order.
        for (reason, count) in reasons.sorted(by: { $0.key < $1.key }) {
            try db.execute("""
                INSERT INTO push_failures (push_id, reason, count) VALUES ($1, $2, $3)
                ON CONFLICT (push_id, reason) DO UPDATE SET count = push_failures.count + excluded.count
                """, [.text(pushID), .text(reason), .int(count)])
        }
    }

    /// Returns every in-flight delivery to pending, whichever node claimed it. Only for a database no node
    /// is using (tools, tests): running nodes give work back with `releaseNode` and rescue each other's
    /// with `rescueExpiredNodes`.
    public func releaseInFlight() async throws -> Int {
        try await database.write { try $0.execute("UPDATE deliveries SET state = 0, claimed_by = NULL WHERE state = 1") }
    }

    public func deliveries(pushID: String, state: DeliveryState?, afterID: Int64, limit: Int) async throws -> [DeliveryRecord] {
        try await database.read { db in
            try db.all("""
                SELECT id, installation_id, state, attempts, status, reason, badge, updated_at FROM deliveries
                WHERE push_id = $1 AND id > $2 AND ($4::smallint IS NULL OR state = $4) ORDER BY id LIMIT $3
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
