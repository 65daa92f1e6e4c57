import Foundation
import HeraldStore

/// The events outbox of one transaction, as `SQLiteOutbox`: the app's enabled webhooks and their
/// subscriptions, read once, so a transaction of an app without webhooks writes nothing more.
struct PostgresOutbox {
    let appID: String
    private let subscribers: [(id: String, events: Set<String>)]

    static func forApp(_ appID: String, _ db: PostgresConnection) throws -> PostgresOutbox {
        PostgresOutbox(appID: appID, subscribers: try db.all("SELECT id, events FROM webhooks WHERE app_id = $1 AND enabled",
                                                             [.text(appID)]) { ($0.text(0), WebhookRecord.subscription($0.text(1))) })
    }

    static func forPush(_ pushID: String, _ db: PostgresConnection) throws -> PostgresOutbox {
        guard let appID = try db.first("SELECT app_id FROM pushes WHERE id = $1", [.text(pushID)], { $0.text(0) }) else {
            return PostgresOutbox(appID: "", subscribers: [])
        }
        return try forApp(appID, db)
    }

    func wants(_ type: WebhookEventType) -> Bool { subscribers.contains { $0.events.contains(type.rawValue) } }

    /// Writes the event once per subscribed webhook, all with the same event id.
    func record(_ event: OutboxEvent, now: Date, _ db: PostgresConnection) throws {
        var eventID: String?
        for s in subscribers where s.events.contains(event.type.rawValue) {
            let id = eventID ?? WebhookEvent.newID()
            eventID = id
            try db.execute("INSERT INTO webhook_events (webhook_id, event_id, app_id, type, created_at, data) VALUES ($1, $2, $3, $4, $5, $6)",
                           [.text(s.id), .text(id), .text(appID), .text(event.type.rawValue), now.pg, .text(event.data)])
        }
    }
}

/// Webhooks on PostgreSQL: the contract and meaning of `SQLiteStore+Webhooks.swift`, with row locks where
/// several nodes could otherwise act on the same webhook or delivery at once.
extension PostgresStore {
    static let webhookColumns = "id, app_id, url, events, description, enabled, sealed_secret, failure_run, disabled_reason, disabled_at, created_at, updated_at"

    static func webhook(_ r: PostgresRow) -> WebhookRecord {
        WebhookRecord(id: r.text(0), appID: r.text(1), url: r.text(2), events: r.text(3).split(separator: ",").map(String.init),
                      description: r.optionalText(4), enabled: r.bool(5), sealedSecret: r.blob(6), failureRun: r.int(7),
                      disabledReason: r.optionalText(8), disabledAt: r.optionalDate(9), createdAt: r.date(10), updatedAt: r.date(11))
    }

    static let webhookDeliveryColumns = "id, webhook_id, kind, state, source_id, event_count, created_at, next_attempt_at, finished_at"

    static func webhookDelivery(_ r: PostgresRow) -> WebhookDeliveryRecord {
        WebhookDeliveryRecord(id: r.text(0), webhookID: r.text(1), kind: .init(rawValue: r.text(2)) ?? .events,
                              state: .init(rawValue: r.text(3)) ?? .failed, sourceID: r.optionalText(4), eventCount: r.int(5),
                              attempts: [], createdAt: r.date(6), nextAttemptAt: r.optionalDate(7), finishedAt: r.optionalDate(8))
    }

    /// Writes `app.paused` + `credential.rejected`, or `app.resumed`, when the app's pause actually changes;
    /// the app row is locked, so two nodes pausing at once report it once.
    static func recordPauseChange(appID: String, reason: String?, environment: String?, now: Date, _ db: PostgresConnection) throws {
        guard let current = try db.first("SELECT paused_reason FROM apps WHERE id = $1 FOR UPDATE", [.text(appID)], { $0.optionalText(0) }) else { return }
        let outbox = try PostgresOutbox.forApp(appID, db)
        if let reason, current == nil {
            for event in OutboxEvent.paused(environment: environment, reason: reason) { try outbox.record(event, now: now, db) }
        } else if reason == nil, current != nil {
            try outbox.record(.resumed(environment: environment, reason: "credential_replaced"), now: now, db)
        }
    }

    static func recordPushFinished(pushID: String, now: Date, _ db: PostgresConnection) throws {
        guard let p = try db.first("SELECT \(pushColumns) FROM pushes WHERE id = $1", [.text(pushID)], push) else { return }
        let outbox = try PostgresOutbox.forApp(p.appID, db)
        guard outbox.wants(.pushDone) || outbox.wants(.pushFailed) || outbox.wants(.pushCancelled) else { return }
        let failures = Dictionary(try db.all("SELECT reason, count FROM push_failures WHERE push_id = $1", [.text(pushID)]) { ($0.text(0), $0.int(1)) },
                                  uniquingKeysWith: +)
        if let event = OutboxEvent.pushFinished(p, failures: failures) { try outbox.record(event, now: now, db) }
    }

    static func recordRetired(_ outbox: PostgresOutbox, seq: Int64, installationID: String? = nil, token: String, reason: String, timestamp: Date?,
                              pushID: String, now: Date, _ db: PostgresConnection) throws {
        guard outbox.wants(.installationRetired),
              let id = try installationID ?? db.first("SELECT id FROM installations WHERE seq = $1", [.integer(seq)], { $0.text(0) }) else { return }
        try outbox.record(.installationRetired(installationID: id, deviceToken: token, reason: reason, timestamp: timestamp, pushID: pushID), now: now, db)
    }

    static func recordDeliveryFailed(_ outbox: PostgresOutbox, pushID: String, deliveryID: Int64?, installationID: String?, token: String,
                                     reason: String, status: Int?, now: Date, _ db: PostgresConnection) throws {
        guard outbox.wants(.deliveryFailed) else { return }
        guard let id = try installationID ?? deliveryID.flatMap({
            try db.first("SELECT installation_id FROM deliveries WHERE id = $1", [.integer($0)], { $0.text(0) })
        }) else { return }
        try outbox.record(.deliveryFailed(pushID: pushID, installationID: id, deviceToken: token, reason: reason, status: status), now: now, db)
    }

    public func setAppPaused(id: String, reason: String?, environment: String?, now: Date) async throws {
        try await database.write { db in
            try Self.recordPauseChange(appID: id, reason: reason, environment: environment, now: now, db)
            try db.execute("UPDATE apps SET paused_reason = $1, paused_at = $2 WHERE id = $3",
                           [.optionalText(reason), reason == nil ? .null : now.pg, .text(id)])
        }
    }

    public func createWebhook(_ w: WebhookRecord) async throws {
        try await database.write { db in
            try db.execute("""
                INSERT INTO webhooks (id, app_id, url, events, description, enabled, sealed_secret, failure_run, disabled_reason, disabled_at, created_at, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                """, [.text(w.id), .text(w.appID), .text(w.url), .text(w.events.joined(separator: ",")), .optionalText(w.description),
                      .bool(w.enabled), .blob(w.sealedSecret), .int(w.failureRun), .optionalText(w.disabledReason), w.disabledAt.pg,
                      w.createdAt.pg, w.updatedAt.pg])
        }
    }

    public func webhooks(appID: String) async throws -> [WebhookRecord] {
        try await database.read { try $0.all("SELECT \(Self.webhookColumns) FROM webhooks WHERE app_id = $1 ORDER BY created_at, id", [.text(appID)], Self.webhook) }
    }

    public func webhook(appID: String, id: String) async throws -> WebhookRecord? {
        try await database.read { try $0.first("SELECT \(Self.webhookColumns) FROM webhooks WHERE app_id = $1 AND id = $2", [.text(appID), .text(id)], Self.webhook) }
    }

    public func updateWebhook(_ w: WebhookRecord) async throws -> Bool {
        try await database.write { db in
            try db.execute("""
                UPDATE webhooks SET url = $1, events = $2, description = $3, sealed_secret = $4, updated_at = $5,
                  failure_run = CASE WHEN $6 AND NOT enabled THEN 0 ELSE failure_run END,
                  disabled_reason = CASE WHEN $6 THEN NULL ELSE disabled_reason END,
                  disabled_at = CASE WHEN $6 THEN NULL ELSE disabled_at END,
                  enabled = $6
                WHERE id = $7 AND app_id = $8
                """, [.text(w.url), .text(w.events.joined(separator: ",")), .optionalText(w.description), .blob(w.sealedSecret),
                      w.updatedAt.pg, .bool(w.enabled), .text(w.id), .text(w.appID)]) > 0
        }
    }

    public func deleteWebhook(appID: String, id: String) async throws -> Bool {
        try await database.write { try $0.execute("DELETE FROM webhooks WHERE id = $1 AND app_id = $2", [.text(id), .text(appID)]) > 0 }
    }

    public func enqueueWebhookDelivery(appID: String, webhookID: String, id: String, sourceID: String?, now: Date) async throws -> WebhookDeliveryRecord? {
        try await database.write { db in
            guard try db.first("SELECT 1 FROM webhooks WHERE id = $1 AND app_id = $2", [.text(webhookID), .text(appID)], { $0.int(0) }) != nil else { return nil }
            var count = 0, since = now
            if let sourceID {
                guard let source = try db.first("SELECT event_count, since FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2 AND kind <> 'ping'",
                                                [.text(sourceID), .text(webhookID)], { ($0.int(0), $0.date(1)) }) else { return nil }
                (count, since) = source
            }
            let kind: WebhookDeliveryRecord.Kind = sourceID == nil ? .ping : .redelivery
            try db.execute("""
                INSERT INTO webhook_deliveries (id, webhook_id, kind, state, source_id, event_count, since, created_at, next_attempt_at)
                VALUES ($1, $2, $3, 'pending', $4, $5, $6, $7, $8)
                """, [.text(id), .text(webhookID), .text(kind.rawValue), .optionalText(sourceID), .int(count), since.pg, now.pg, now.pg])
            return WebhookDeliveryRecord(id: id, webhookID: webhookID, kind: kind, state: .pending, sourceID: sourceID, eventCount: count,
                                         attempts: [], createdAt: now, nextAttemptAt: now, finishedAt: nil)
        }
    }

    public func claimWebhookDeliveries(owner: String, limit: Int, batchSize: Int, leaseUntil: Date, now: Date) async throws -> [ClaimedWebhookDelivery] {
        try await database.write { db in
            // A webhook another node is batching is skipped; a locked one is checked again with a fresh snapshot
            // (READ COMMITTED: each statement sees what committed before it), so no webhook gets two pending batches.
            let ready = try db.all("""
                SELECT w.id FROM webhooks w WHERE w.enabled
                  AND EXISTS (SELECT 1 FROM webhook_events e WHERE e.webhook_id = w.id AND e.delivery_id IS NULL)
                  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.kind = 'events' AND d.state = 'pending')
                FOR UPDATE SKIP LOCKED
                """) { $0.text(0) }
            for webhookID in ready {
                guard try db.first("SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1 AND kind = 'events' AND state = 'pending'",
                                   [.text(webhookID)], { $0.int(0) }) == nil else { continue }
                let deliveryID = WebhookEvent.newID(prefix: "whd_")
                let batched = try db.execute("""
                    UPDATE webhook_events SET delivery_id = $1 WHERE seq IN
                      (SELECT seq FROM webhook_events WHERE webhook_id = $2 AND delivery_id IS NULL ORDER BY seq LIMIT $3)
                    """, [.text(deliveryID), .text(webhookID), .int(batchSize)])
                guard batched > 0 else { continue }
                let since = try db.first("SELECT min(created_at) FROM webhook_events WHERE delivery_id = $1", [.text(deliveryID)]) { $0.optionalDate(0) } ?? nil
                try db.execute("""
                    INSERT INTO webhook_deliveries (id, webhook_id, kind, state, event_count, since, created_at, next_attempt_at)
                    VALUES ($1, $2, 'events', 'pending', $3, $4, $5, $6)
                    """, [.text(deliveryID), .text(webhookID), .int(batched), (since ?? now).pg, now.pg, now.pg])
            }
            let claimed = try db.all("""
                UPDATE webhook_deliveries SET lease_owner = $1, lease_until = $2
                WHERE id IN (SELECT d.id FROM webhook_deliveries d
                             WHERE d.state = 'pending' AND d.next_attempt_at <= $3 AND (d.lease_until IS NULL OR d.lease_until <= $3)
                               AND (d.kind <> 'events' OR EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.enabled))
                             ORDER BY d.next_attempt_at, d.seq LIMIT $4 FOR UPDATE SKIP LOCKED)
                  AND state = 'pending' AND (lease_until IS NULL OR lease_until <= $3)
                RETURNING \(Self.webhookDeliveryColumns), since
                """, [.text(owner), leaseUntil.pg, now.pg, .int(limit)]) { (Self.webhookDelivery($0), $0.date(9)) }
            return try claimed.compactMap { delivery, since in
                guard let webhook = try db.first("SELECT \(Self.webhookColumns) FROM webhooks WHERE id = $1", [.text(delivery.webhookID)], Self.webhook) else { return nil }
                let events = try db.all("""
                    SELECT event_id, type, app_id, created_at, data FROM webhook_events WHERE delivery_id = $1 ORDER BY seq
                    """, [.text(delivery.sourceID ?? delivery.id)]) {
                    WebhookEvent(id: $0.text(0), type: $0.text(1), appID: $0.text(2), createdAt: $0.date(3), data: $0.text(4))
                }
                let made = try db.first("SELECT count(*) FROM webhook_attempts WHERE delivery_id = $1", [.text(delivery.id)]) { $0.int(0) } ?? 0
                return ClaimedWebhookDelivery(delivery: delivery, webhook: webhook, events: events, attemptsMade: made, since: since)
            }
        }
    }

    public func recordWebhookAttempt(deliveryID: String, owner: String, attempt: WebhookAttemptRecord, retryAt: Date?,
                                     disableAfter: Int, now: Date) async throws -> WebhookAttemptEffect? {
        try await database.write { db in
            guard let (webhookID, kind, sourceID, count) = try db.first("""
                SELECT webhook_id, kind, source_id, event_count FROM webhook_deliveries
                WHERE id = $1 AND state = 'pending' AND lease_owner = $2 FOR UPDATE
                """, [.text(deliveryID), .text(owner)], { ($0.text(0), $0.text(1), $0.optionalText(2), $0.int(3)) }) else { return nil }
            try db.execute("""
                INSERT INTO webhook_attempts (delivery_id, number, at, status, body, error, latency_ms)
                VALUES ($1, (SELECT count(*) + 1 FROM webhook_attempts WHERE delivery_id = $1), $2, $3, $4, $5, $6)
                """, [.text(deliveryID), attempt.at.pg, .optionalInt(attempt.status), .optionalText(attempt.body),
                      .optionalText(attempt.error), .int(attempt.latencyMilliseconds)])
            let events = sourceID ?? deliveryID
            if attempt.acknowledged {
                try db.execute("UPDATE webhook_deliveries SET state = 'delivered', finished_at = $1, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL WHERE id = $2",
                               [now.pg, .text(deliveryID)])
                try db.execute("UPDATE webhook_events SET state = 1 WHERE delivery_id = $1", [.text(events)])
                if kind == WebhookDeliveryRecord.Kind.events.rawValue {
                    try db.execute("UPDATE webhooks SET failure_run = 0 WHERE id = $1", [.text(webhookID)])
                }
                return .delivered(events: count)
            }
            if let retryAt {
                try db.execute("UPDATE webhook_deliveries SET next_attempt_at = $1, lease_owner = NULL, lease_until = NULL WHERE id = $2",
                               [retryAt.pg, .text(deliveryID)])
                return .retrying(at: retryAt)
            }
            try db.execute("UPDATE webhook_deliveries SET state = 'failed', finished_at = $1, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL WHERE id = $2",
                           [now.pg, .text(deliveryID)])
            guard kind == WebhookDeliveryRecord.Kind.events.rawValue else { return .failed(events: count, disabled: false) }
            try db.execute("UPDATE webhook_events SET state = 2 WHERE delivery_id = $1 AND state = 0", [.text(events)])
            try db.execute("UPDATE webhooks SET failure_run = failure_run + 1 WHERE id = $1", [.text(webhookID)])
            let disabled = try db.execute("""
                UPDATE webhooks SET enabled = false, disabled_reason = $1, disabled_at = $2 WHERE id = $3 AND enabled AND failure_run >= $4
                """, [.text(Self.disabledReason(disableAfter)), now.pg, .text(webhookID), .int(disableAfter)]) > 0
            return .failed(events: count, disabled: disabled)
        }
    }

    static func disabledReason(_ run: Int) -> String {
        "\(run) deliveries in a row failed; fix the receiver, then enable the webhook again (PATCH enabled: true)"
    }

    public func webhookDeliveries(webhookID: String, before: String?, limit: Int) async throws -> [WebhookDeliveryRecord] {
        try await database.read { db in
            var deliveries = try db.all("""
                SELECT \(Self.webhookDeliveryColumns) FROM webhook_deliveries WHERE webhook_id = $1
                  AND ($2::text IS NULL OR seq < (SELECT seq FROM webhook_deliveries WHERE id = $2)) ORDER BY seq DESC LIMIT $3
                """, [.text(webhookID), .optionalText(before), .int(limit)], Self.webhookDelivery)
            for i in deliveries.indices {
                deliveries[i].attempts = try db.all("""
                    SELECT number, at, status, body, error, latency_ms FROM webhook_attempts WHERE delivery_id = $1 ORDER BY number
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
            let (count, oldest) = try db.first("SELECT count(*), min(created_at) FROM webhook_events WHERE state = 0") { ($0.int(0), $0.optionalDate(1)) } ?? (0, nil)
            let disabled = try db.all("SELECT app_id, id, disabled_reason FROM webhooks WHERE disabled_reason IS NOT NULL ORDER BY app_id, id") {
                (appID: $0.text(0), webhookID: $0.text(1), reason: $0.text(2))
            }
            return WebhookQueueStats(pendingEvents: count, oldestPending: oldest, disabled: disabled)
        }
    }

    public func purgeWebhookEvents(before: Date, limit: Int) async throws -> Int {
        try await database.write { db in
            let events = try db.execute("""
                DELETE FROM webhook_events WHERE seq IN (SELECT seq FROM webhook_events WHERE state <> 0 AND created_at < $1 LIMIT $2)
                """, [before.pg, .int(limit)])
            try db.execute("""
                DELETE FROM webhook_deliveries d WHERE d.seq IN (SELECT seq FROM webhook_deliveries x WHERE x.state <> 'pending' AND x.finished_at < $1
                  AND NOT EXISTS (SELECT 1 FROM webhook_events e WHERE e.delivery_id = x.id) LIMIT $2)
                """, [before.pg, .int(limit)])
            return events
        }
    }
}
