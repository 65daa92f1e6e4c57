import Foundation
import HeraldStore

/// The events outbox of one transaction: the app's enabled webhooks and what each subscribes to, read once
/// at the start, so a transaction of an app without webhooks costs one indexed lookup and writes nothing.
struct SQLiteOutbox {
    let appID: String
    let subscribers: [(id: String, events: Set<String>)]

    static func forApp(_ appID: String, _ db: SQLiteConnection) throws -> SQLiteOutbox {
        SQLiteOutbox(appID: appID, subscribers: try db.all("SELECT id, events FROM webhooks WHERE app_id = ? AND enabled = 1",
                                                           [.text(appID)]) { ($0.text(0), WebhookRecord.subscription($0.text(1))) })
    }

    /// The outbox of the push's app (empty when the push is gone).
    static func forPush(_ pushID: String, _ db: SQLiteConnection) throws -> SQLiteOutbox {
        guard let appID = try db.first("SELECT app_id FROM pushes WHERE id = ?", [.text(pushID)], { $0.text(0) }) else {
            return SQLiteOutbox(appID: "", subscribers: [])
        }
        return try forApp(appID, db)
    }

    /// Whether any webhook takes events of `type`: callers skip building data nobody reads.
    func wants(_ type: WebhookEventType) -> Bool { subscribers.contains { $0.events.contains(type.rawValue) } }

    /// Writes the event once per subscribed webhook, all with the same event id. (Many events of one
    /// transaction go through `SQLiteOutboxRows` and are written together.)
    func record(_ event: OutboxEvent, now: Date, _ db: SQLiteConnection) throws {
        var rows = SQLiteOutboxRows(self)
        rows.record(event, now: now)
        try rows.insert(db)
    }
}


extension SQLiteStore {
    static let webhookColumns = "id, app_id, url, events, description, enabled, sealed_secret, failure_run, disabled_reason, disabled_at, created_at, updated_at"

    static func webhook(_ r: SQLiteRow) -> WebhookRecord {
        WebhookRecord(id: r.text(0), appID: r.text(1), url: r.text(2), events: r.text(3).split(separator: ",").map(String.init),
                      description: r.optionalText(4), enabled: r.bool(5), sealedSecret: r.blob(6), failureRun: r.int(7),
                      disabledReason: r.optionalText(8), disabledAt: r.optionalDate(9), createdAt: r.date(10), updatedAt: r.date(11))
    }

    static let webhookDeliveryColumns = "id, webhook_id, kind, state, source_id, event_count, created_at, next_attempt_at, finished_at"

    static func webhookDelivery(_ r: SQLiteRow) -> WebhookDeliveryRecord {
        WebhookDeliveryRecord(id: r.text(0), webhookID: r.text(1), kind: .init(rawValue: r.text(2)) ?? .events,
                              state: .init(rawValue: r.text(3)) ?? .failed, sourceID: r.optionalText(4), eventCount: r.int(5),
                              attempts: [], createdAt: r.date(6), nextAttemptAt: r.optionalDate(7), finishedAt: r.optionalDate(8))
    }

    /// Writes `app.paused` + `credential.rejected`, or `app.resumed`, when the app's pause actually changes.
    static func recordPauseChange(appID: String, reason: String?, environment: String?, now: Date, _ db: SQLiteConnection) throws {
        guard let current = try db.first("SELECT paused_reason FROM apps WHERE id = ?", [.text(appID)], { $0.optionalText(0) }) else { return }
        let outbox = try SQLiteOutbox.forApp(appID, db)
        if let reason, current == nil {
            for event in OutboxEvent.paused(environment: environment, reason: reason) { try outbox.record(event, now: now, db) }
        } else if reason == nil, current != nil {
            try outbox.record(.resumed(environment: environment, reason: "credential_replaced"), now: now, db)
        }
    }

    /// The push.* event of a push that has just finished in this transaction.
    static func recordPushFinished(pushID: String, now: Date, _ db: SQLiteConnection) throws {
        guard let p = try db.first("SELECT \(pushColumns) FROM pushes WHERE id = ?", [.text(pushID)], push) else { return }
        let outbox = try SQLiteOutbox.forApp(p.appID, db)
        guard outbox.wants(.pushDone) || outbox.wants(.pushFailed) || outbox.wants(.pushCancelled) else { return }
        var failures: [String: Int] = [:]
        try db.query("SELECT reason, count FROM push_failures WHERE push_id = ?", [.text(pushID)]) { failures[$0.text(0)] = $0.int(1) }
        if let event = OutboxEvent.pushFinished(p, failures: failures) { try outbox.record(event, now: now, db) }
    }

    /// `installation.retired` for the installation `seq` just retired by the caller.
    static func recordRetired(_ events: inout SQLiteOutboxRows, seq: Int64, installationID: String? = nil, token: String, reason: String,
                              timestamp: Date?, pushID: String, now: Date, _ db: SQLiteConnection) throws {
        guard events.outbox.wants(.installationRetired),
              let id = try installationID ?? db.first("SELECT id FROM installations WHERE seq = ?", [.integer(seq)], { $0.text(0) }) else { return }
        events.record(.installationRetired(installationID: id, deviceToken: token, reason: reason, timestamp: timestamp, pushID: pushID), now: now)
    }

    /// `delivery.failed` for a delivery that just failed for good; `installationID` nil looks it up by delivery row.
    static func recordDeliveryFailed(_ events: inout SQLiteOutboxRows, pushID: String, deliveryID: Int64?, installationID: String?, token: String,
                                     reason: String, status: Int?, now: Date, _ db: SQLiteConnection) throws {
        guard events.outbox.wants(.deliveryFailed) else { return }
        guard let id = try installationID ?? deliveryID.flatMap({
            try db.first("SELECT installation_id FROM deliveries WHERE id = ?", [.integer($0)], { $0.text(0) })
        }) else { return }
        events.record(.deliveryFailed(pushID: pushID, installationID: id, deviceToken: token, reason: reason, status: status), now: now)
    }

    public func setAppPaused(id: String, reason: String?, environment: String?, now: Date) async throws {
        try await database.write { db in
            try Self.recordPauseChange(appID: id, reason: reason, environment: environment, now: now, db)
            try db.execute("UPDATE apps SET paused_reason = ?, paused_at = ? WHERE id = ?",
                           [.optionalText(reason), reason == nil ? .null : now.sql, .text(id)])
        }
    }

    public func createWebhook(_ w: WebhookRecord) async throws {
        try await database.write { db in
            try db.execute("""
                INSERT INTO webhooks (id, app_id, url, events, description, enabled, sealed_secret, failure_run, disabled_reason, disabled_at, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(w.id), .text(w.appID), .text(w.url), .text(w.events.joined(separator: ",")), .optionalText(w.description),
                      .bool(w.enabled), .blob(w.sealedSecret), .int(w.failureRun), .optionalText(w.disabledReason), w.disabledAt.sql,
                      w.createdAt.sql, w.updatedAt.sql])
        }
    }

    public func webhooks(appID: String) async throws -> [WebhookRecord] {
        try await database.read { try $0.all("SELECT \(Self.webhookColumns) FROM webhooks WHERE app_id = ? ORDER BY created_at, id", [.text(appID)], Self.webhook) }
    }

    public func webhook(appID: String, id: String) async throws -> WebhookRecord? {
        try await database.read { try $0.first("SELECT \(Self.webhookColumns) FROM webhooks WHERE app_id = ? AND id = ?", [.text(appID), .text(id)], Self.webhook) }
    }

    public func updateWebhook(_ w: WebhookRecord) async throws -> Bool {
        try await database.write { db in
            try db.execute("""
                UPDATE webhooks SET url = ?, events = ?, description = ?, sealed_secret = ?, updated_at = ?,
                  failure_run = CASE WHEN ?6 AND enabled = 0 THEN 0 ELSE failure_run END,
                  disabled_reason = CASE WHEN ?6 THEN NULL ELSE disabled_reason END,
                  disabled_at = CASE WHEN ?6 THEN NULL ELSE disabled_at END,
                  enabled = ?6
                WHERE id = ?7 AND app_id = ?8
                """, [.text(w.url), .text(w.events.joined(separator: ",")), .optionalText(w.description), .blob(w.sealedSecret),
                      w.updatedAt.sql, .bool(w.enabled), .text(w.id), .text(w.appID)]) > 0
        }
    }

    public func deleteWebhook(appID: String, id: String) async throws -> Bool {
        try await database.write { try $0.execute("DELETE FROM webhooks WHERE id = ? AND app_id = ?", [.text(id), .text(appID)]) > 0 }
    }

    public func enqueueWebhookDelivery(appID: String, webhookID: String, id: String, sourceID: String?, now: Date) async throws -> WebhookDeliveryRecord? {
        try await database.write { db in
            guard try db.first("SELECT 1 FROM webhooks WHERE id = ? AND app_id = ?", [.text(webhookID), .text(appID)], { $0.int(0) }) != nil else { return nil }
            var count = 0, since = now
            var range: (first: SQLValue, last: SQLValue) = (.null, .null)
            if let sourceID {
                guard let source = try db.first("""
                    SELECT event_count, since, first_seq, last_seq FROM webhook_deliveries WHERE id = ? AND webhook_id = ? AND kind <> 'ping'
                    """, [.text(sourceID), .text(webhookID)], { ($0.int(0), $0.date(1), $0.int64(2), $0.int64(3)) }) else { return nil }
                (count, since, range) = (source.0, source.1, (.integer(source.2), .integer(source.3)))
            }
            let kind: WebhookDeliveryRecord.Kind = sourceID == nil ? .ping : .redelivery
            try db.execute("""
                INSERT INTO webhook_deliveries (id, webhook_id, kind, state, source_id, event_count, since, created_at, next_attempt_at, first_seq, last_seq)
                VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?)
                """, [.text(id), .text(webhookID), .text(kind.rawValue), .optionalText(sourceID), .int(count), since.sql, now.sql, now.sql,
                      range.first, range.last])
            return WebhookDeliveryRecord(id: id, webhookID: webhookID, kind: kind, state: .pending, sourceID: sourceID, eventCount: count,
                                         attempts: [], createdAt: now, nextAttemptAt: now, finishedAt: nil)
        }
    }

    /// Enabled webhooks with events past their last batch and no batch of events pending. The pending check
    /// is a search of `webhook_deliveries_pending_events` (at most one row per webhook), not of the webhook's
    /// delivery history.
    static let webhooksReadyForABatch = """
        SELECT w.id, w.batched_through FROM webhooks w WHERE w.enabled = 1
          AND EXISTS (SELECT 1 FROM webhook_events e WHERE e.webhook_id = w.id AND e.seq > w.batched_through)
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.kind = 'events' AND d.state = 'pending')
        """

    public func claimWebhookDeliveries(owner: String, limit: Int, batchSize: Int, leaseUntil: Date, now: Date) async throws -> [ClaimedWebhookDelivery] {
        try await database.write { db in
            // Batch the next events of each enabled webhook that has none pending: a range of seq, so no
            // event row is written again.
            let ready = try db.all(Self.webhooksReadyForABatch) { ($0.text(0), $0.int64(1)) }
            for (webhookID, after) in ready {
                guard let batch = try db.first("""
                    SELECT count(*), min(seq), max(seq), min(created_at) FROM
                      (SELECT seq, created_at FROM webhook_events WHERE webhook_id = ? AND seq > ? ORDER BY seq LIMIT ?)
                    """, [.text(webhookID), .integer(after), .int(batchSize)], { ($0.int(0), $0.int64(1), $0.int64(2), $0.date(3)) }),
                      batch.0 > 0 else { continue }
                try db.execute("""
                    INSERT INTO webhook_deliveries (id, webhook_id, kind, state, event_count, since, created_at, next_attempt_at, first_seq, last_seq)
                    VALUES (?, ?, 'events', 'pending', ?, ?, ?, ?, ?, ?)
                    """, [.text(WebhookEvent.newID(prefix: "whd_")), .text(webhookID), .int(batch.0), batch.3.sql, now.sql, now.sql,
                          .integer(batch.1), .integer(batch.2)])
                try db.execute("UPDATE webhooks SET batched_through = ? WHERE id = ?", [.integer(batch.2), .text(webhookID)])
            }
            let claimed = try db.all("""
                UPDATE webhook_deliveries SET lease_owner = ?1, lease_until = ?2
                WHERE id IN (SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
                             WHERE d.state = 'pending' AND d.next_attempt_at <= ?3 AND (d.lease_until IS NULL OR d.lease_until <= ?3)
                               AND (w.enabled = 1 OR d.kind <> 'events')
                             ORDER BY d.next_attempt_at, d.seq LIMIT ?4)
                RETURNING \(Self.webhookDeliveryColumns), since, first_seq, last_seq
                """, [.text(owner), leaseUntil.sql, now.sql, .int(limit)]) { (Self.webhookDelivery($0), $0.date(9), $0.int64(10), $0.int64(11)) }
            return try claimed.compactMap { delivery, since, first, last in
                guard let webhook = try db.first("SELECT \(Self.webhookColumns) FROM webhooks WHERE id = ?", [.text(delivery.webhookID)], Self.webhook) else { return nil }
                // A ping has no range (NULL reads as 0): no events.
                let events = try db.all("""
                    SELECT event_id, type, created_at, data FROM webhook_events WHERE webhook_id = ? AND seq BETWEEN ? AND ? ORDER BY seq
                    """, [.text(delivery.webhookID), .integer(first), .integer(last)]) {
                    WebhookEvent(id: $0.text(0), type: $0.text(1), appID: webhook.appID, createdAt: $0.date(2), data: $0.text(3))
                }
                let made = try db.first("SELECT count(*) FROM webhook_attempts WHERE delivery_id = ?", [.text(delivery.id)]) { $0.int(0) } ?? 0
                return ClaimedWebhookDelivery(delivery: delivery, webhook: webhook, events: events, attemptsMade: made, since: since)
            }
        }
    }

    public func recordWebhookAttempt(deliveryID: String, owner: String, attempt: WebhookAttemptRecord, retryAt: Date?,
                                     disableAfter: Int, now: Date) async throws -> WebhookAttemptEffect? {
        try await database.write { db in
            guard let (webhookID, kind, count) = try db.first("""
                SELECT webhook_id, kind, event_count FROM webhook_deliveries WHERE id = ? AND state = 'pending' AND lease_owner = ?
                """, [.text(deliveryID), .text(owner)], { ($0.text(0), $0.text(1), $0.int(2)) }) else { return nil }
            try db.execute("""
                INSERT INTO webhook_attempts (delivery_id, number, at, status, body, error, latency_ms)
                VALUES (?1, (SELECT count(*) + 1 FROM webhook_attempts WHERE delivery_id = ?1), ?2, ?3, ?4, ?5, ?6)
                """, [.text(deliveryID), attempt.at.sql, .optionalInt(attempt.status), .optionalText(attempt.body),
                      .optionalText(attempt.error), .int(attempt.latencyMilliseconds)])
            // Events carry no state of their own: they are pending, delivered or failed as their delivery is.
            if attempt.acknowledged {
                try db.execute("UPDATE webhook_deliveries SET state = 'delivered', finished_at = ?, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL WHERE id = ?",
                               [now.sql, .text(deliveryID)])
                if kind == WebhookDeliveryRecord.Kind.events.rawValue {
                    try db.execute("UPDATE webhooks SET failure_run = 0 WHERE id = ?", [.text(webhookID)])
                }
                return .delivered(events: count)
            }
            if let retryAt {
                try db.execute("UPDATE webhook_deliveries SET next_attempt_at = ?, lease_owner = NULL, lease_until = NULL WHERE id = ?",
                               [retryAt.sql, .text(deliveryID)])
                return .retrying(at: retryAt)
            }
            try db.execute("UPDATE webhook_deliveries SET state = 'failed', finished_at = ?, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL WHERE id = ?",
                           [now.sql, .text(deliveryID)])
            guard kind == WebhookDeliveryRecord.Kind.events.rawValue else { return .failed(events: count, disabled: false) }
            try db.execute("UPDATE webhooks SET failure_run = failure_run + 1 WHERE id = ?", [.text(webhookID)])
            let disabled = try db.execute("""
                UPDATE webhooks SET enabled = 0, disabled_reason = ?, disabled_at = ? WHERE id = ? AND enabled = 1 AND failure_run >= ?
                """, [.text(Self.disabledReason(disableAfter)), now.sql, .text(webhookID), .int(disableAfter)]) > 0
            return .failed(events: count, disabled: disabled)
        }
    }

    static func disabledReason(_ run: Int) -> String {
        "\(run) deliveries in a row failed; fix the receiver, then enable the webhook again (PATCH enabled: true)"
    }

    public func webhookDeliveries(webhookID: String, before: String?, limit: Int) async throws -> [WebhookDeliveryRecord] {
        try await database.read { db in
            var deliveries = try db.all("""
                SELECT \(Self.webhookDeliveryColumns) FROM webhook_deliveries WHERE webhook_id = ?1
                  AND (?2 IS NULL OR seq < (SELECT seq FROM webhook_deliveries WHERE id = ?2)) ORDER BY seq DESC LIMIT ?3
                """, [.text(webhookID), .optionalText(before), .int(limit)], Self.webhookDelivery)
            for i in deliveries.indices {
                deliveries[i].attempts = try db.all("""
                    SELECT number, at, status, body, error, latency_ms FROM webhook_attempts WHERE delivery_id = ? ORDER BY number
                    """, [.text(deliveries[i].id)]) {
                    WebhookAttemptRecord(number: $0.int(0), at: $0.date(1), status: $0.optionalInt(2), body: $0.optionalText(3),
                                         error: $0.optionalText(4), latencyMilliseconds: $0.int(5))
                }
            }
            return deliveries
        }
    }

    public func webhookQueueStats() async throws -> WebhookQueueStats {
        try await database.read { db in
            // Pending: not yet in a batch, or in a batch of events not yet acknowledged nor given up.
            let unbatched = try db.first("""
                SELECT count(*), min(e.created_at) FROM webhooks w JOIN webhook_events e ON e.webhook_id = w.id AND e.seq > w.batched_through
                """) { ($0.int(0), $0.optionalDate(1)) } ?? (0, nil)
            let batched = try db.first("SELECT coalesce(sum(event_count), 0), min(since) FROM webhook_deliveries WHERE state = 'pending' AND kind = 'events'") {
                ($0.int(0), $0.optionalDate(1))
            } ?? (0, nil)
            let count = unbatched.0 + batched.0
            let oldest = [unbatched.1, batched.1].compactMap { $0 }.min()
            let disabled = try db.all("SELECT app_id, id, disabled_reason FROM webhooks WHERE disabled_reason IS NOT NULL ORDER BY app_id, id") {
                (appID: $0.text(0), webhookID: $0.text(1), reason: $0.text(2))
            }
            return WebhookQueueStats(pendingEvents: count, oldestPending: oldest, disabled: disabled)
        }
    }

    public func purgeWebhookEvents(before: Date, limit: Int) async throws -> Int {
        try await database.write { db in
            // Old events whose batch is finished (oldest first: seq follows time), then finished deliveries.
            let events = try db.execute("""
                DELETE FROM webhook_events WHERE seq IN (SELECT e.seq FROM webhook_events e JOIN webhooks w ON w.id = e.webhook_id
                  WHERE e.created_at < ?1 AND e.seq <= w.batched_through
                    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = e.webhook_id AND d.state = 'pending'
                                    AND d.kind = 'events' AND e.seq BETWEEN d.first_seq AND d.last_seq)
                  ORDER BY e.seq LIMIT ?2)
                """, [before.sql, .int(limit)])
            try db.execute("""
                DELETE FROM webhook_deliveries WHERE seq IN (SELECT seq FROM webhook_deliveries WHERE state <> 'pending' AND finished_at < ?1 LIMIT ?2)
                """, [before.sql, .int(limit)])
            return events
        }
    }
}
