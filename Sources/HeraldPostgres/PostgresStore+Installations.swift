import Foundation
import HeraldStore

extension PostgresStore {
    static let installationColumns = """
        seq, id, app_id, installation_id, device_token, environment, topic, alias, user_id, locale, time_zone, badge,
        app_version, os_version, device_model, properties, active, inactive_reason, inactive_at, created_at, updated_at,
        last_seen_at, token_updated_at
        """

    /// The number of `installationColumns`: a statement's own columns after them start at this index.
    static let installationColumnCount = installationColumns.split(separator: ",").count

    static func installation(_ r: PostgresRow) -> InstallationRecord {
        InstallationRecord(seq: r.int64(0), id: r.text(1), appID: r.text(2), installationID: r.text(3),
                           deviceToken: r.optionalText(4), environment: r.text(5), topic: r.optionalText(6), tags: [],
                           alias: r.optionalText(7), userID: r.optionalText(8), locale: r.optionalText(9),
                           timeZone: r.optionalText(10), badge: r.int(11), appVersion: r.optionalText(12),
                           osVersion: r.optionalText(13), deviceModel: r.optionalText(14), properties: r.text(15),
                           active: r.bool(16), inactiveReason: r.optionalText(17), inactiveAt: r.optionalDate(18),
                           createdAt: r.date(19), updatedAt: r.date(20), lastSeenAt: r.date(21), tokenUpdatedAt: r.date(22))
    }

    static func withTags(_ record: InstallationRecord, _ db: PostgresConnection) throws -> InstallationRecord {
        var r = record
        r.tags = try db.all("SELECT tag FROM installation_tags WHERE app_id = $1 AND seq = $2 ORDER BY tag",
                            [.text(r.appID), .integer(r.seq)]) { $0.text(0) }
        return r
    }

    /// `forUpdate` locks the row found (write paths): a concurrent read-modify-write of the same
    /// installation then waits and reads this one's result, as behind SQLite's single writer.
    static func findInstallation(appID: String, id: String, forUpdate: Bool = false, _ db: PostgresConnection) throws -> InstallationRecord? {
        let lock = forUpdate ? " FOR UPDATE" : ""
        let byID = try db.first("SELECT \(installationColumns) FROM installations WHERE id = $1 AND app_id = $2" + lock,
                                [.text(id), .text(appID)], installation)
        if let byID { return byID }
        return try db.first("SELECT \(installationColumns) FROM installations WHERE app_id = $1 AND installation_id = $2" + lock,
                            [.text(appID), .text(id)], installation)
    }

    public func installation(appID: String, id: String) async throws -> InstallationRecord? {
        try await database.read { db in
            try Self.findInstallation(appID: appID, id: id, db).map { try Self.withTags($0, db) }
        }
    }

    /// SQLite's single writer made "look up, then insert or update" atomic. Here concurrent writers of the
    /// same installation id or token serialize on transaction-scoped advisory locks, all taken by one
    /// statement in one order (the app's, then the keys sorted; PostgreSQL evaluates a select list in
    /// order), so they cannot deadlock; every registration shares an app-wide lock that an import and
    /// `deleteApp` take alone.
    ///
    /// Installations have no foreign key to their app (migration 9). Each later statement's snapshot is taken
    /// after the locks, so it sees a `deleteApp` that committed while this one waited: the lookups find none
    /// of the app's rows, and `insertInstallation` stores nothing for an app that is gone (`notFound`).
    static func lockForUpsert(appID: String, draft: InstallationDraft, _ db: PostgresConnection) throws {
        let keys = lockKeys(appID: appID, draft: draft).map(ByteKey.init).sorted().map(\.text)
        let locks = ["pg_advisory_xact_lock_shared(hashtextextended($1, 0))"]
            + keys.indices.map { "pg_advisory_xact_lock(hashtextextended($\($0 + 2), 0))" }
        try db.execute("SELECT " + locks.joined(separator: ", "), [.text(appLockKey(appID))] + keys.map { .text($0) })
    }

    /// The advisory locks a write of `draft` takes besides its app's: its installation id's and its token's.
    static func lockKeys(appID: String, draft: InstallationDraft) -> [String] {
        var keys: [String] = []
        if let iid = draft.installationID { keys.append("herald.iid:\(appID):\(iid)") }
        if let token = draft.deviceToken { keys.append("herald.token:\(appID):\(token)") }
        return keys
    }

    /// The advisory lock of an app's registry: shared by registrations, alone for an import or a deletion.
    static func appLockKey(_ appID: String) -> String { "herald.app:" + appID }

    static func appExists(_ appID: String, _ db: PostgresConnection) throws -> Bool {
        try db.first("SELECT EXISTS (SELECT 1 FROM apps WHERE id = $1)", [.text(appID)]) { $0.bool(0) } ?? false
    }

    public func upsertInstallation(appID: String, draft: InstallationDraft, match: InstallationMatch, newID: String,
                                   now: Date) async throws -> (InstallationRecord, created: Bool) {
        // A registration may be written with the rest of its group (`RegistrationBatch`), which leaves its
        // body the record it inserted, or the locks it took. An update is only locked with the group's others.
        let insertable = if case .installationIDOrToken = match { true } else { false }
        let pending = PendingRegistration(appID: appID, draft: draft, newID: newID, now: now, insertable: insertable)
        let result = try await installationWrites.write(payload: pending) { db in
            if let inserted = pending.inserted { return (inserted, created: true) }
            if let updated = pending.updated { return (updated, created: false) }
            if pending.appGone { throw StoreError.notFound }
            if !pending.locked { try Self.lockForUpsert(appID: appID, draft: draft, db) }
            return try Self.upsert(appID: appID, draft: draft, match: match, newID: newID, now: now, db)
        }
        registered(created: result.created)
        return result
    }

    /// Locks the save's installation id and token as a registration does (with its group's, before any row
    /// lock), then finds the installation with its row locked, so a concurrent save of it waits and then
    /// merges into what this one wrote.
    public func saveInstallation(appID: String, _ save: InstallationSave, newID: String, now: Date) async throws -> (InstallationRecord, created: Bool) {
        let pending = PendingRegistration(appID: appID, draft: save.keys, newID: newID, now: now, insertable: false)
        let result = try await installationWrites.write(payload: pending) { db in
            if !pending.locked { try Self.lockForUpsert(appID: appID, draft: save.keys, db) }
            let (draft, found) = try save.resolve(
                find: { try Self.findInstallation(appID: appID, id: $0, forUpdate: true, db).map { try Self.withTags($0, db) } },
                findActive: { try db.first(Self.selectActiveByToken, [.text(appID), .text($0)], Self.installation).map { try Self.withTags($0, db) } })
            return try Self.upsert(appID: appID, draft: draft, match: found.map { .existing($0.id) } ?? .installationIDOrToken,
                                   newID: newID, now: now, db, found: found)
        }
        registered(created: result.created)
        return result
    }

    /// The oldest active installation holding a token, as the audience query orders them; its row locked.
    static let selectActiveByToken = "SELECT \(installationColumns) FROM installations WHERE app_id = $1 AND device_token = $2 AND active ORDER BY seq LIMIT 1 FOR UPDATE"

    /// First one commit that waits for the disk, whatever the server's `synchronous_commit`: the import's
    /// batches committed without waiting (`importInstallations`), and PostgreSQL's WAL is one sequence, so
    /// flushing this commit's record flushes theirs. It writes nothing but a transactional logical-decoding
    /// message (a WAL record that changes no table), since a commit that wrote no WAL is not flushed.
    ///
    /// Then, when asked, ANALYZE of the two tables an import writes (it reads a sample of ~30,000 rows of
    /// each, so it takes about the same half second at any size). Without it the first push after a large
    /// import ran while the tables had no statistics for their new rows: 5,846 against 32,540
    /// notifications/s after importing 300,000, with nine times the database's CPU (docs/performance.md,
    /// "The first push after an import"). Autovacuum does the same later, on its own schedule and often
    /// during that push. Best effort: the rows are stored and durable either way.
    public func installationsImported(refreshingStatistics: Bool) async throws {
        try await database.write { db in
            _ = try db.execute("SET LOCAL synchronous_commit = on")
            _ = try db.execute("SELECT pg_logical_emit_message(true, 'herald', 'import flushed')")
        }
        guard refreshingStatistics else { return }
        try? await database.withConnection { db in _ = try db.execute("ANALYZE installations, installation_tags") }
    }

    /// A batch holds only its app's lock, so it keeps waiting only that app's registrations (~0.4 s for a
    /// batch of 20,000). Each step up from 5,000 cut what a batch costs besides its rows (round trips, the
    /// second connection's transaction, the hand-over between batches): 1,000,000 imported at 48,000-55,000/s
    /// in batches of 5,000, 53,000-62,000/s in batches of 10,000, and 8% faster again in batches of 20,000
    /// than of 10,000 in alternating runs (docs/performance.md, "PostgreSQL import at 50,000/s").
    public var importBatchSize: Int { 20_000 }

    /// Encodes every draft's rows as if it were new (`PostgresImportRows`), on the caller's thread.
    public func prepareImport(appID: String, drafts: [InstallationDraft], newIDs: [String], now: Date) -> PreparedImport {
        PreparedImport(appID: appID, drafts: drafts, newIDs: newIDs, now: now,
                       encoded: PostgresImportRows(appID: appID, drafts: drafts, newIDs: newIDs, now: now))
    }

    /// Imports many installations in one transaction, with the same outcome as upserting each in order.
    /// Drafts that match no stored installation and share no installation id or token with an earlier
    /// draft go in together, by one COPY of installations and one of their tags (`copy`); the others take
    /// the one-by-one path. A large batch of new installations only is written in two halves on two
    /// connections at once (`insertNewInHalves`). Holds the app's lock alone; an app deleted meanwhile is
    /// `notFound`.
    ///
    /// The commit does not wait for the WAL to reach disk (`synchronous_commit` off for this transaction):
    /// that wait was a sixth of a batch's time, and the import waits once instead, at its end
    /// (`installationsImported`). A database crash meanwhile can lose batches that were answered to the
    /// import but not yet to its client; a batch is still lost whole (or, written in halves, half by whole
    /// half), and the client, told of the failure, sends the file again (an import is an upsert).
    public func importInstallations(_ batch: PreparedImport) async throws -> (created: Int, updated: Int) {
        let encoded = batch.encoded as? PostgresImportRows ?? PostgresImportRows(batch)
        let database = self.database
        return try await database.write { db in
            let (appID, drafts, newIDs, now) = (batch.appID, batch.drafts, batch.newIDs, batch.now)
            _ = try db.execute("SET LOCAL synchronous_commit = off")
            try db.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [.text(Self.appLockKey(appID))])
            guard try Self.appExists(appID, db) else { throw StoreError.notFound }
            let takenIDs = Set(try db.all("SELECT installation_id FROM installations WHERE app_id = $1 AND installation_id = ANY($2::text[])",
                                          [.text(appID), encoded.installationIDs]) { $0.text(0) })
            let takenTokens = Set(try db.all("SELECT device_token FROM installations WHERE app_id = $1 AND device_token = ANY($2::text[])",
                                             [.text(appID), encoded.tokens]) { $0.text(0) })
            // Whether each draft is new: it matches no stored installation and no earlier draft of the batch.
            let isFresh = zip(drafts, encoded.firstOfBatch).map { draft, first in
                first && !(draft.installationID.map(takenIDs.contains) ?? false) && !(draft.deviceToken.map(takenTokens.contains) ?? false)
            }
            if drafts.count >= Self.importSplitAt && !isFresh.contains(false), let side = database.lendIdle() {
                defer { side.giveBack() }
                try Self.insertNewInHalves(Array(drafts.indices), of: encoded, db, beside: side)
                return (drafts.count, 0)
            }
            var fresh: [Int] = []
            var created = 0, updated = 0
            func flush() throws {
                guard !fresh.isEmpty else { return }
                let (rows, tags) = encoded.rows(fresh, seqs: try Self.newSeqs(fresh.count, db))
                try Self.copy(rows, tags, db)
                created += fresh.count
                fresh.removeAll(keepingCapacity: true)
            }
            for (i, (draft, newID)) in zip(drafts, newIDs).enumerated() {
                if isFresh[i] {
                    fresh.append(i)
                    continue
                }
                try flush()
                let (_, isNew) = try Self.upsert(appID: appID, draft: draft, match: .installationIDOrToken, newID: newID, now: now, db, loadTags: false)
                if isNew { created += 1 } else { updated += 1 }
            }
            try flush()
            return (created, updated)
        }
    }

    /// A batch of at least this many new installations is written on two connections at once.
    static let importSplitAt = 1_000

    /// New installations written in two halves at once, on two connections, so that PostgreSQL's work
    /// for them (index maintenance, mostly: six entries per installation, two per tag) runs on two cores:
    /// one backend was the import's limit. The first half goes in the caller's transaction on `db`, which
    /// holds the app's lock; the second in a transaction of its own on `side`, committed first, while that
    /// lock still keeps registrations and deletions of the app waiting, so no reader sees the second half
    /// without the first's lock having been taken, and a deletion waiting for the lock finds both halves.
    /// Both roll back if either fails before that commit. Should the first half's commit then fail (the
    /// database lost between the two), the second half stays: each half is whole (rows with their tags),
    /// and sending the batch again (an import is an upsert) completes it, the second half as updates.
    static func insertNewInHalves(_ indices: [Int], of encoded: PostgresImportRows, _ db: PostgresConnection,
                                  beside side: SideConnection) throws {
        let seqs = try newSeqs(indices.count, db)
        let half = indices.count / 2
        let (secondIndices, secondSeqs) = (Array(indices[half...]), Array(seqs[half...]))
        let secondWritten = side.start { other in
            let second = encoded.rows(secondIndices, seqs: secondSeqs)
            try other.executeScript("BEGIN")
            _ = try other.execute("SET LOCAL synchronous_commit = off")
            try copy(second.installations, second.tags, other)
        }
        let first = encoded.rows(Array(indices[..<half]), seqs: Array(seqs[..<half]))
        do {
            try copy(first.installations, first.tags, db)
            try secondWritten.wait()
            try side.run { try $0.executeScript("COMMIT") }
        } catch {
            try? secondWritten.wait()
            _ = try? side.run { try $0.executeScript("ROLLBACK") }
            throw error
        }
    }

    /// `count` new `seq`s, ascending (registration order, as inserting one by one would), so the tags' rows
    /// can carry them directly. Before migration 9 the tags were joined to their installations by id, and
    /// each row of both tables ran a foreign-key trigger: together about half of PostgreSQL's CPU per
    /// imported installation.
    static func newSeqs(_ count: Int, _ db: PostgresConnection) throws -> [Int64] {
        // The sequence by its name (the one PostgreSQL gives an identity column), a constant the parser resolves
        // once. Looked up by `pg_get_serial_sequence` in a subquery, the planner pulled the lookup into the loop
        // and ran it per number: 14 ms per 5,000 numbers instead of 2.
        let seqs = try db.all("SELECT nextval('installations_seq_seq') FROM generate_series(1, $1)", [.int(count)]) { $0.int64(0) }.sorted()
        guard seqs.count == count else { throw PostgresError(message: "the installations sequence gave \(seqs.count) numbers for \(count) rows") }
        return seqs
    }

    /// New installations and their tags (`PostgresImportRows.rows`) in two COPYs, whatever their number.
    static func copy(_ rows: PGCopyRows, _ tags: PGCopyRows, _ db: PostgresConnection) throws {
        try db.copy("""
            COPY installations (installation_id, device_token, environment, topic, alias, user_id, locale, time_zone,
            badge, app_version, os_version, device_model, properties, active, inactive_reason, inactive_at, updated_at,
            last_seen_at, token_updated_at, id, app_id, created_at, seq) FROM STDIN
            """, rows)
        if tags.count > 0 {
            try db.copy("COPY installation_tags (app_id, tag, seq) FROM STDIN", tags)
        }
    }

    /// `found`: the installation `match` names, already read and locked in this transaction (a save's), not
    /// read again.
    static func upsert(appID: String, draft: InstallationDraft, match: InstallationMatch, newID: String, now: Date,
                       _ db: PostgresConnection, loadTags: Bool = true, found: InstallationRecord? = nil) throws -> (InstallationRecord, created: Bool) {
        var existing: InstallationRecord?
        // Whether another row may still hold the draft's token (decides if the dedup UPDATE is needed).
        var tokenMayBeElsewhere = true
        switch match {
        case .existing(let id):
            guard let row = try found ?? findInstallation(appID: appID, id: id, forUpdate: true, db) else { throw StoreError.notFound }
            existing = row
        case .installationIDOrToken:
            if let iid = draft.installationID {
                existing = try db.first("SELECT \(installationColumns) FROM installations WHERE app_id = $1 AND installation_id = $2 FOR UPDATE",
                                        [.text(appID), .text(iid)], installation)
            }
            if existing == nil, let token = draft.deviceToken {
                // A reinstall keeps the token but gets a new installation id: adopt the old row.
                existing = try db.first(selectByToken, [.text(appID), .text(token)], installation)
                if existing == nil { tokenMayBeElsewhere = false }
            }
        }
        var r = existing ?? .new(appID: appID, installationID: draft.installationID ?? newID, id: newID,
                                 createdAt: draft.createdAt, now: now)
        if let iid = draft.installationID, iid != r.installationID {
            if try db.first("SELECT 1 FROM installations WHERE app_id = $1 AND installation_id = $2", [.text(appID), .text(iid)], { $0.int(0) }) != nil {
                throw StoreError.conflict("installationId \(iid) already belongs to another installation")
            }
            r.installationID = iid
        }
        r.apply(draft, now: now)
        let values = writtenColumns(r)
        let tags = draft.tags.map(Set.init)
        // The statements after the insert or the lookup depend on nothing they answer: they go together, in
        // one round trip (a known device re-registering with its tags was four).
        var writes: [PostgresConnection.Statement] = []
        if existing == nil {
            guard let seq = try db.first(insertInstallation, values + [.text(r.id), .text(appID), r.createdAt.pg, PGArray.text(Array(tags ?? []))],
                                         { $0.int64(0) }) else {
                throw StoreError.notFound   // the app was deleted
            }
            r.seq = seq
        } else {
            writes.append(.init("""
                UPDATE installations SET installation_id = $1, device_token = $2, environment = $3, topic = $4, alias = $5,
                user_id = $6, locale = $7, time_zone = $8, badge = $9, app_version = $10, os_version = $11, device_model = $12,
                properties = $13, active = $14, inactive_reason = $15, inactive_at = $16, updated_at = $17, last_seen_at = $18,
                token_updated_at = $19 WHERE seq = $20
                """, values + [.integer(r.seq)]))
        }
        if existing?.deviceToken == draft.deviceToken { tokenMayBeElsewhere = false }   // unchanged token: invariant holds
        if let token = draft.deviceToken, tokenMayBeElsewhere {
            // One token, one device: older rows holding the same token are stale copies and must not get pushes.
            writes.append(.init("""
                UPDATE installations SET device_token = NULL, active = false, inactive_reason = 'Replaced', inactive_at = $1, updated_at = $2
                WHERE app_id = $3 AND device_token = $4 AND seq <> $5
                """, [now.pg, now.pg, .text(appID), .text(token), .integer(r.seq)]))
        }
        if let tags, existing != nil {
            writes.append(.init("DELETE FROM installation_tags WHERE app_id = $1 AND seq = $2", [.text(appID), .integer(r.seq)]))
            if !tags.isEmpty {
                writes.append(.init("INSERT INTO installation_tags (app_id, tag, seq) SELECT $1, t, $3 FROM unnest($2::text[]) AS t",
                                    [.text(appID), PGArray.text(Array(tags)), .integer(r.seq)]))
            }
        }
        if !writes.isEmpty { _ = try db.pipeline(writes) }
        guard loadTags else { return (r, existing == nil) }
        return (try r.answering(written: tags, existed: existing != nil) { try withTags($0, db) }, existing == nil)
    }

    /// The columns a registration writes, in the order of `insertInstallation`'s (and the UPDATE's) first 19
    /// parameters; an insert adds the id, the app and the creation time.
    static func writtenColumns(_ r: InstallationRecord) -> [SQLValue] {
        [.text(r.installationID), .optionalText(r.deviceToken), .text(r.environment), .optionalText(r.topic),
         .optionalText(r.alias), .optionalText(r.userID), .optionalText(r.locale), .optionalText(r.timeZone), .int(r.badge),
         .optionalText(r.appVersion), .optionalText(r.osVersion), .optionalText(r.deviceModel), .text(r.properties),
         .bool(r.active), .optionalText(r.inactiveReason), r.inactiveAt.pg, r.updatedAt.pg, r.lastSeenAt.pg,
         r.tokenUpdatedAt.pg]
    }

    /// A registration's lookup by token ($2) in its app ($1), locking the row found. PostgreSQL must plan it
    /// with statistics (`RegistryStatistics`): without, its cached plan walks every row of the app.
    static let selectByToken = "SELECT \(installationColumns) FROM installations WHERE app_id = $1 AND device_token = $2 LIMIT 1 FOR UPDATE"

    /// A new installation and its tags ($23) in one statement (one round trip), stored only if its app ($21)
    /// still exists: no row comes back otherwise. The parameters are cast to the columns' types so that they
    /// do not depend on what PostgreSQL infers for the select list of an `INSERT ... SELECT`.
    static let insertInstallation = """
        WITH inserted AS (
            INSERT INTO installations (installation_id, device_token, environment, topic, alias, user_id, locale, time_zone,
            badge, app_version, os_version, device_model, properties, active, inactive_reason, inactive_at, updated_at,
            last_seen_at, token_updated_at, id, app_id, created_at)
            SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::bigint, $10::text,
                   $11::text, $12::text, $13::text, $14::boolean, $15::text, $16::float8, $17::float8, $18::float8, $19::float8,
                   $20::text, $21::text, $22::float8
            WHERE EXISTS (SELECT 1 FROM apps WHERE id = $21::text)
            RETURNING seq),
        tagged AS (
            INSERT INTO installation_tags (app_id, tag, seq) SELECT $21::text, t, inserted.seq FROM inserted, unnest($23::text[]) AS t)
        SELECT seq FROM inserted
        """

    /// The installation first, then its tags (no foreign key cascades them since migration 9): the
    /// installation's delete waits for a tag change holding its row, so the tags' delete, a statement
    /// after it, sees that change's tags too.
    public func deleteInstallation(appID: String, id: String) async throws -> Bool {
        try await installationWrites.write { db in
            guard let r = try Self.findInstallation(appID: appID, id: id, db) else { return false }
            guard try db.execute("DELETE FROM installations WHERE seq = $1", [.integer(r.seq)]) > 0 else { return false }
            try db.execute("DELETE FROM installation_tags WHERE app_id = $1 AND seq = $2", [.text(appID), .integer(r.seq)])
            return true
        }
    }

    public func updateTags(appID: String, id: String, add: [String], remove: [String], now: Date) async throws -> InstallationRecord {
        try await installationWrites.write { db in
            guard var r = try Self.findInstallation(appID: appID, id: id, forUpdate: true, db) else { throw StoreError.notFound }
            if !remove.isEmpty {
                try db.execute("DELETE FROM installation_tags WHERE app_id = $1 AND tag = ANY($2::text[]) AND seq = $3",
                               [.text(appID), PGArray.text(remove), .integer(r.seq)])
            }
            if !add.isEmpty {
                try db.execute("""
                    INSERT INTO installation_tags (app_id, tag, seq) SELECT $1, t, $3 FROM unnest($2::text[]) AS t
                    ON CONFLICT DO NOTHING
                    """, [.text(appID), PGArray.text(add), .integer(r.seq)])
            }
            try db.execute("UPDATE installations SET updated_at = $1, last_seen_at = $2 WHERE seq = $3", [now.pg, now.pg, .integer(r.seq)])
            r.updatedAt = now
            r.lastSeenAt = now
            return try Self.withTags(r, db)
        }
    }

    /// One page of installations in `seq` order, matching every filter set in `query`.
    public func installations(appID: String, query q: InstallationQuery) async throws -> [InstallationRecord] {
        try await database.read { db in
            let rows = try db.all("""
                SELECT \(Self.installationColumns) FROM installations i
                WHERE i.app_id = $1 AND i.seq > $2
                  AND ($3::text IS NULL OR EXISTS (SELECT 1 FROM installation_tags t WHERE t.app_id = $1 AND t.tag = $3 AND t.seq = i.seq))
                  AND ($4::text IS NULL OR i.alias = $4)
                  AND ($5::text IS NULL OR i.user_id = $5)
                  AND ($6::text IS NULL OR i.device_token = $6)
                  AND ($7::boolean IS NULL OR i.active = $7)
                  AND ($8::float8 IS NULL OR i.updated_at >= $8)
                ORDER BY i.seq LIMIT $9
                """, [.text(appID), .integer(q.afterSeq), .optionalText(q.tag), .optionalText(q.alias), .optionalText(q.userID),
                      .optionalText(q.deviceToken), q.active.map(SQLValue.bool) ?? .null, q.updatedSince.pg, .int(q.limit)],
                Self.installation)
            return try rows.map { try Self.withTags($0, db) }
        }
    }

    /// Tags of the app with how many installations carry each, in name order after `after`.
    public func tags(appID: String, after: String?, limit: Int) async throws -> [(tag: String, count: Int)] {
        try await database.read { db in
            try db.all("""
                SELECT tag, count(*) FROM installation_tags WHERE app_id = $1 AND tag > $2 GROUP BY tag ORDER BY tag LIMIT $3
                """, [.text(appID), .text(after ?? ""), .int(limit)]) { (tag: $0.text(0), count: $0.int(1)) }
        }
    }

    public func aliases(appID: String, after: String?, limit: Int) async throws -> [(alias: String, count: Int)] {
        try await database.read { db in
            try db.all("""
                SELECT alias, count(*) FROM installations WHERE app_id = $1 AND alias IS NOT NULL AND alias > $2
                GROUP BY alias ORDER BY alias LIMIT $3
                """, [.text(appID), .text(after ?? ""), .int(limit)]) { (alias: $0.text(0), count: $0.int(1)) }
        }
    }

    public func removeTagEverywhere(appID: String, tag: String) async throws -> Int {
        try await database.write { db in
            try db.execute("DELETE FROM installation_tags WHERE app_id = $1 AND tag = $2", [.text(appID), .text(tag)])
        }
    }

    public func installationCount(appID: String) async throws -> Int {
        try await database.read { try $0.first("SELECT count(*) FROM installations WHERE app_id = $1", [.text(appID)]) { $0.int(0) } ?? 0 }
    }
}
