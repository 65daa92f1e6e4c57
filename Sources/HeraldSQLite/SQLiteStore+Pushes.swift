import Foundation
import HeraldStore

extension SQLiteStore {
    static let pushColumns = """
        id, app_id, idempotency_key, request, status, created_at, updated_at, send_at, expires_at, finished_at,
        fanout_cursor, fanout_done, targeted, sent, failed, retired, opened, cancelled, error_code, error_message
        """

    static func push(_ r: SQLiteRow) -> PushRecord {
        var p = PushRecord(id: r.text(0), appID: r.text(1), idempotencyKey: r.optionalText(2), request: r.text(3),
                           status: PushStatus(rawValue: r.text(4)) ?? .failed, createdAt: r.date(5),
                           sendAt: r.optionalDate(7), expiresAt: r.optionalDate(8))
        p.updatedAt = r.date(6)
        p.finishedAt = r.optionalDate(9)
        p.fanoutCursor = r.int64(10)
        p.fanoutDone = r.bool(11)
        p.counts.targeted = r.int(12); p.counts.sent = r.int(13); p.counts.failed = r.int(14)
        p.counts.retired = r.int(15); p.counts.opened = r.int(16); p.counts.cancelled = r.int(17)
        p.errorCode = r.optionalText(18); p.errorMessage = r.optionalText(19)
        return p
    }

    /// Stores a new push, unless the app already has a push with the same idempotency key created after
    /// `idempotentSince`: then that push is returned and nothing is stored (`created` is false).
    public func insertPush(_ push: PushRecord, idempotentSince: Date, reaching: AudienceSelector?) async throws -> (PushRecord, created: Bool) {
        try await database.write { db in
            if let key = push.idempotencyKey {
                if let earlier = try db.first("SELECT \(Self.pushColumns) FROM pushes WHERE app_id = ? AND idempotency_key = ?",
                                              [.text(push.appID), .text(key)], Self.push) {
                    if earlier.createdAt >= idempotentSince { return (earlier, false) }
                    // The key's window is over: release it so the new push can take it.
                    try db.execute("UPDATE pushes SET idempotency_key = NULL WHERE id = ?", [.text(earlier.id)])
                }
            }
            if let reaching, try Self.audiencePage(appID: push.appID, selector: reaching, after: 0, limit: 1, db).isEmpty {
                throw AudienceReachesNoOne()
            }
            // An app deleted meanwhile (the API may know it from a read a moment old): nothing is stored.
            let inserted = try db.execute("""
                INSERT INTO pushes (id, app_id, idempotency_key, request, status, created_at, updated_at, send_at, expires_at)
                SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9 WHERE EXISTS (SELECT 1 FROM apps WHERE id = ?2)
                """, [.text(push.id), .text(push.appID), .optionalText(push.idempotencyKey), .text(push.request),
                      .text(push.status.rawValue), push.createdAt.sql, push.updatedAt.sql, push.sendAt.sql, push.expiresAt.sql])
            guard inserted > 0 else { throw StoreError.notFound }
            return (push, true)
        }
    }

    public func push(appID: String, id: String) async throws -> PushRecord? {
        try await database.read { try $0.first("SELECT \(Self.pushColumns) FROM pushes WHERE id = ? AND app_id = ?", [.text(id), .text(appID)], Self.push) }
    }

    public func push(id: String) async throws -> PushRecord? {
        try await database.read { try $0.first("SELECT \(Self.pushColumns) FROM pushes WHERE id = ?", [.text(id)], Self.push) }
    }

    /// Newest first, paging by creation time; `status` narrows to one state (e.g. the scheduled ones).
    public func pushes(appID: String, status: PushStatus?, before: Date?, limit: Int) async throws -> [PushRecord] {
        try await database.read {
            try $0.all("""
                SELECT \(Self.pushColumns) FROM pushes WHERE app_id = ? AND created_at < ? AND (?3 IS NULL OR status = ?3)
                ORDER BY created_at DESC, id LIMIT ?
                """, [.text(appID), .real(before?.timeIntervalSince1970 ?? .greatestFiniteMagnitude), .optionalText(status?.rawValue), .int(limit)], Self.push)
        }
    }

    public func failureReasons(pushID: String) async throws -> [String: Int] {
        try await database.read { db in
            var result: [String: Int] = [:]
            try db.query("SELECT reason, count FROM push_failures WHERE push_id = ?", [.text(pushID)]) { result[$0.text(0)] = $0.int(1) }
            return result
        }
    }

    /// Moves scheduled pushes whose time has come to `queued`; returns how many.
    public func promoteScheduled(now: Date) async throws -> Int {
        try await database.write { db in
            try db.execute("UPDATE pushes SET status = 'queued', updated_at = ?1 WHERE status = 'scheduled' AND send_at <= ?1", [now.sql])
        }
    }

    /// Pushes with work left: queued (fan-out pending) or sending.
    public func activePushes() async throws -> [PushRecord] {
        try await database.read { try $0.all("SELECT \(Self.pushColumns) FROM pushes WHERE status IN ('queued', 'sending') ORDER BY created_at, id", [], Self.push) }
    }

    /// Cancels a push that has not finished: pending deliveries become cancelled; in-flight ones finish.
    public func cancelPush(appID: String, id: String, now: Date) async throws -> PushRecord? {
        try await database.write { db in
            guard let p = try db.first("SELECT \(Self.pushColumns) FROM pushes WHERE id = ? AND app_id = ?", [.text(id), .text(appID)], Self.push) else { return nil }
            guard !p.status.isFinal else { throw StoreError.conflict("push \(id) is already \(p.status.rawValue)") }
            let cancelled = try db.execute("UPDATE deliveries SET state = 4, updated_at = ? WHERE push_id = ? AND state = 0", [now.sql, .text(id)])
            try db.execute("UPDATE pushes SET status = 'cancelled', cancelled = cancelled + ?, finished_at = ?, updated_at = ? WHERE id = ?",
                           [.int(cancelled), now.sql, now.sql, .text(id)])
            try Self.recordPushFinished(pushID: id, now: now, db)
            return try db.first("SELECT \(Self.pushColumns) FROM pushes WHERE id = ?", [.text(id)], Self.push)
        }
    }

    public func failPush(id: String, code: String, message: String, now: Date) async throws {
        try await database.write { db in
            let cancelled = try db.execute("UPDATE deliveries SET state = 4, updated_at = ? WHERE push_id = ? AND state = 0", [now.sql, .text(id)])
            if try db.execute("""
                UPDATE pushes SET status = 'failed', error_code = ?, error_message = ?, cancelled = cancelled + ?, finished_at = ?, updated_at = ?
                WHERE id = ? AND status NOT IN ('done', 'cancelled', 'failed')
                """, [.text(code), .text(message), .int(cancelled), now.sql, now.sql, .text(id)]) > 0 {
                try Self.recordPushFinished(pushID: id, now: now, db)
            }
        }
    }

    /// Marks the push done when fan-out is complete and no delivery is pending or in flight.
    public func finishIfComplete(pushID: String, now: Date) async throws -> Bool {
        try await database.write { db in
            let finished = try db.execute("""
                UPDATE pushes SET status = 'done', finished_at = ?2, updated_at = ?2
                WHERE id = ?1 AND status = 'sending' AND fanout_done = 1
                  -- one test per partial index (pending, in flight): `state IN (0, 1)` would walk every row of the push
                  AND NOT EXISTS (SELECT 1 FROM deliveries WHERE push_id = ?1 AND state = 0)
                  AND NOT EXISTS (SELECT 1 FROM deliveries WHERE push_id = ?1 AND state = 1)
                """, [.text(pushID), now.sql]) > 0
            if finished { try Self.recordPushFinished(pushID: pushID, now: now, db) }
            return finished
        }
    }

    /// Records an open once per (push, installation); returns false for a repeat.
    public func recordOpen(appID: String, pushID: String, installationID: String, now: Date) async throws -> Bool {
        try await database.write { db in
            guard try db.first("SELECT 1 FROM pushes WHERE id = ? AND app_id = ?", [.text(pushID), .text(appID)], { $0.int(0) }) != nil else {
                throw StoreError.notFound
            }
            guard let inst = try Self.findInstallation(appID: appID, id: installationID, db) else { throw StoreError.notFound }
            let inserted = try db.execute("INSERT OR IGNORE INTO opens (push_id, seq, opened_at) VALUES (?, ?, ?)",
                                          [.text(pushID), .integer(inst.seq), now.sql])
            if inserted > 0 {
                try db.execute("UPDATE pushes SET opened = opened + 1 WHERE id = ?", [.text(pushID)])
                try SQLiteOutbox.forApp(appID, db).record(.opened(pushID: pushID, installationID: inst.id, at: now), now: now, db)
            }
            return inserted > 0
        }
    }

    /// Deletes up to `limit` finished pushes (and their deliveries, failures and opens) finished before `before`.
    public func purgeFinishedPushes(before: Date, limit: Int) async throws -> Int {
        let purged = try await database.write { db in
            try db.execute("""
                DELETE FROM pushes WHERE id IN (SELECT id FROM pushes WHERE status IN ('done', 'cancelled', 'failed')
                AND finished_at < ? LIMIT ?)
                """, [before.sql, .int(limit)])
        }
        // The journal's file is not reached by the cascade: its entries of pushes deleted or complete go here.
        try await sweepJournal()
        return purged
    }
}
