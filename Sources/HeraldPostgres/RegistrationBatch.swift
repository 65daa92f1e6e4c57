import Foundation
import HeraldStore

/// A write of one installation waiting in a group transaction (`GroupCommit.Write.payload`): a registration
/// (`upsertInstallation` with `.installationIDOrToken`, which the batch may insert), or an update or a
/// LeanCloud save (`insertable` false: the batch only takes its locks); and what the group's
/// `RegistrationBatch` already did for it in the current run of the transaction. Touched only on the
/// connection's queue, by one run at a time.
final class PendingRegistration: @unchecked Sendable {
    let appID: String
    /// The draft, or for a save its keys: what the locks are taken for.
    let draft: InstallationDraft
    let newID: String
    let now: Date
    let insertable: Bool
    /// The installation the batch created for this registration; the write's body then has nothing left to do.
    var inserted: InstallationRecord?
    /// The batch committed the transaction with its insert, which did not store this registration (its app
    /// was deleted): the write's body answers that, with nothing left to run.
    var appGone = false
    /// The batch's lock statement holds this registration's locks; its body need not take them again.
    var locked = false

    init(appID: String, draft: InstallationDraft, newID: String, now: Date, insertable: Bool) {
        self.appID = appID
        self.draft = draft
        self.newID = newID
        self.now = now
        self.insertable = insertable
    }
}

/// The registrations of one group transaction, written together where they can be: a new device is one
/// row of one statement for the whole group, instead of three round trips of its own. A statement's round
/// trip costs both ends more CPU than the work it carries: PostgreSQL's backends spent 245 µs per
/// registration, of which its statements' execution was 80 (docs/performance.md, "Round 16").
///
/// Before the group's writes run, `write` takes every lock the group's registrations need in one statement
/// (`PostgresStore.lockKeys`: the apps' shared locks, then the keys, sorted, as one registration takes
/// its own), then finds which of their installation ids and tokens are stored (a statement whose snapshot
/// follows the locks; both in the round trip of the transaction's `BEGIN`), and inserts in one statement
/// every registration that is new: whose installation id and token neither a stored installation nor an
/// earlier registration of the group has, and whose app still exists. Each registration's body then
/// returns what was inserted for it, or, for the others (a known device, a token the group registers
/// twice), runs `PostgresStore.upsert` as it would alone, under the locks already held. The new rows go in
/// before the others' writes, which cannot change what decided they were new: an earlier write of the
/// group shares no key with them. When every registration of the group is new, the insert is the
/// transaction's last statement and carries its `COMMIT`: a group of new devices is two round trips.
///
/// New devices are inserted only in groups of registrations alone (another kind of write may change keys
/// this batch cannot see; updates and LeanCloud saves count as another kind, though the batch takes their
/// locks too); a lone update or save takes its own path. In a group that mixes registrations
/// with other writes, the batch still takes the registrations' locks first, so that a group always takes
/// its advisory locks before any row lock: otherwise a batched group, holding a later registration's key
/// and waiting for a row, and a mixed group, holding that row and waiting for the key, would deadlock.
struct RegistrationBatch: Sendable {
    let registrations: [PendingRegistration]
    /// The group is of registrations alone: its new devices are inserted together. In a group with writes
    /// of other kinds the batch only takes the registrations' locks.
    let insertsNew: Bool

    /// A lone registration is a batch too: new, it is two round trips (its locks and lookups with the
    /// `BEGIN`, its insert with the `COMMIT`) instead of four; known, as many as alone.
    init?(_ writes: [GroupCommit<PostgresConnection>.Write]) {
        let registrations = writes.compactMap { $0.payload as? PendingRegistration }
        guard !registrations.isEmpty else { return nil }
        self.registrations = registrations
        insertsNew = registrations.count == writes.count && registrations.allSatisfy(\.insertable)
        guard writes.count >= 2 || insertsNew else { return nil }
    }

    /// Takes the group's locks and inserts its new devices, in the caller's transaction. Forgets what an
    /// earlier run of the transaction did first: that run was rolled back. Returns true when it committed
    /// the transaction too: every registration of the group was new, so its insert was the transaction's
    /// last statement and carried the `COMMIT` (one round trip fewer); each write's body then only answers.
    func write(_ db: PostgresConnection) throws -> Bool {
        forget()
        let stored = try lockAndFindStoredKeys(db)
        return insertsNew ? try insertNew(db, stored: stored) : false
    }

    /// Back to nothing done: each registration's body does all of its write.
    func forget() {
        for registration in registrations {
            registration.inserted = nil
            registration.appGone = false
            registration.locked = false
        }
    }

    /// The group's locks, then which of its installation ids and tokens are stored: one statement per app
    /// (a group is nearly always of one app), each two index scans. All in one round trip, with the
    /// transaction's `BEGIN`; each statement's snapshot is taken when it starts, so the lookups see what
    /// was committed before the locks were granted.
    private func lockAndFindStoredKeys(_ db: PostgresConnection) throws -> Set<Key> {
        // By their bytes, as PostgreSQL compares them: Swift's `String` equality would merge two
        // canonically equivalent keys into one lock.
        var apps = Set<[UInt8]>(), keys = Set<[UInt8]>()
        for r in registrations {
            apps.insert(Array(PostgresStore.appLockKey(r.appID).utf8))
            keys.formUnion(PostgresStore.lockKeys(appID: r.appID, draft: r.draft).map { Array($0.utf8) })
        }
        let ordered = (apps.sorted(by: PostgresStore.bytesPrecede) + keys.sorted(by: PostgresStore.bytesPrecede))
            .map { String(decoding: $0, as: UTF8.self) }
        let shared = ordered.indices.map { $0 < apps.count }
        let byApp = insertsNew ? Dictionary(grouping: registrations, by: \.appID).map { ($0.key, $0.value) } : []
        let lookups = byApp.map { app, group in
            PostgresConnection.Statement(Self.selectStoredKeys, [.text(app), PGArray.text(group.compactMap(\.draft.installationID)),
                                                                 PGArray.text(group.compactMap(\.draft.deviceToken))])
        }
        let results = try db.pipeline([PostgresConnection.Statement(Self.lockAll, [PGArray.text(ordered), PGArray.bool(shared)])] + lookups)
        for r in registrations { r.locked = true }
        var taken = Set<Key>()
        for ((app, _), result) in zip(byApp, results.dropFirst()) {
            taken.formUnion(result.rows { $0.bool(0) ? Key(app, token: $0.text(1)) : Key(app, iid: $0.text(1)) })
        }
        return taken
    }

    /// Returns true when the insert committed the transaction (every registration was new).
    private func insertNew(_ db: PostgresConnection, stored: Set<Key>) throws -> Bool {
        // Keys stored, or registered by an earlier registration of the group.
        var taken = stored
        var rows = NewInstallationColumns()
        var records: [String: (PendingRegistration, InstallationRecord, Set<String>?)] = [:]
        for registration in registrations {
            let (app, draft, now) = (registration.appID, registration.draft, registration.now)
            let keys = [draft.installationID.map { Key(app, iid: $0) }, draft.deviceToken.map { Key(app, token: $0) }].compactMap { $0 }
            let isNew = keys.allSatisfy { !taken.contains($0) }
            taken.formUnion(keys)
            guard isNew else { continue }
            var record = InstallationRecord.new(appID: app, installationID: draft.installationID ?? registration.newID,
                                                id: registration.newID, createdAt: draft.createdAt, now: now)
            record.apply(draft, now: now)
            let tags = draft.tags.map(Set.init)
            rows.append(record, tags: tags ?? [])
            records[record.id] = (registration, record, tags)
        }
        guard !records.isEmpty else { return false }
        let committing = records.count == registrations.count
        let result = try db.pipeline([.init(Self.insertNew, rows.arguments)], committing: committing)[0]
        for (id, seq) in result.rows({ (id: $0.text(0), seq: $0.int64(1)) }) {
            guard let (registration, record, tags) = records[id] else { continue }
            var stored = record
            stored.seq = seq
            registration.inserted = stored.answering(written: tags, existed: false) { $0 }
        }
        if committing {
            for registration in registrations where registration.inserted == nil { registration.appGone = true }
        }
        return committing
    }

    /// An installation id or a token of an app, by bytes (as PostgreSQL compares them).
    private struct Key: Hashable {
        let app: [UInt8], isToken: Bool, value: [UInt8]
        init(_ app: String, iid: String) { (self.app, isToken, value) = (Array(app.utf8), false, Array(iid.utf8)) }
        init(_ app: String, token: String) { (self.app, isToken, value) = (Array(app.utf8), true, Array(token.utf8)) }
    }

    /// Of the installation ids $2 and the tokens $3, those an installation of app $1 has (true: a token).
    static let selectStoredKeys = """
        SELECT false, installation_id FROM installations WHERE app_id = $1 AND installation_id = ANY($2::text[])
        UNION ALL
        SELECT true, device_token FROM installations WHERE app_id = $1 AND device_token = ANY($3::text[])
        """

    /// Advisory locks on every key of $1 in order, shared where $2 says so (the apps' locks). Also sets the
    /// transaction's plans generic: PostgreSQL otherwise planned `insertNew` anew at nearly every run
    /// (its generic plan, costed for arrays of unknown length, looked dearer than one for the arrays at
    /// hand), 0.41 ms of planning for 0.27 of execution. In the same statement, it costs no round trip.
    static let lockAll = """
        SELECT set_config('plan_cache_mode', 'force_generic_plan', true),
               count(CASE WHEN s THEN pg_advisory_xact_lock_shared(hashtextextended(k, 0))::text
                          ELSE pg_advisory_xact_lock(hashtextextended(k, 0))::text END)
        FROM unnest($1::text[], $2::boolean[]) AS l(k, s)
        """

    /// New installations ($1-$22, a column each) and their tags ($23 ids, $24 tags), stored only if their
    /// app still exists; returns the id and `seq` of each one inserted.
    static let insertNew = """
        WITH inserted AS (
            INSERT INTO installations (installation_id, device_token, environment, topic, alias, user_id, locale, time_zone,
            badge, app_version, os_version, device_model, properties, active, inactive_reason, inactive_at, updated_at,
            last_seen_at, token_updated_at, id, app_id, created_at)
            SELECT c.* FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                $8::text[], $9::bigint[], $10::text[], $11::text[], $12::text[], $13::text[], $14::boolean[], $15::text[],
                $16::float8[], $17::float8[], $18::float8[], $19::float8[], $20::text[], $21::text[], $22::float8[])
            AS c(installation_id, device_token, environment, topic, alias, user_id, locale, time_zone, badge, app_version,
                 os_version, device_model, properties, active, inactive_reason, inactive_at, updated_at, last_seen_at,
                 token_updated_at, id, app_id, created_at)
            WHERE EXISTS (SELECT 1 FROM apps WHERE apps.id = c.app_id)
            RETURNING seq, id, app_id),
        tagged AS (
            INSERT INTO installation_tags (app_id, tag, seq)
            SELECT inserted.app_id, t.tag, inserted.seq FROM inserted JOIN unnest($23::text[], $24::text[]) AS t(id, tag) ON t.id = inserted.id)
        SELECT id, seq FROM inserted
        """
}

/// New installations as `insertNew`'s parameters: a column's values in one array each (the columns a
/// registration writes, `PostgresStore.writtenColumns`, then the id, the app and the creation time), and
/// the tags as two parallel arrays of installation ids and tags.
private struct NewInstallationColumns {
    private var columns: [[SQLValue]] = []
    private var tagIDs: [String] = []
    private var tags: [String] = []

    mutating func append(_ r: InstallationRecord, tags recordTags: Set<String>) {
        let row = PostgresStore.writtenColumns(r) + [.text(r.id), .text(r.appID), r.createdAt.pg]
        if columns.isEmpty { columns = Array(repeating: [], count: row.count) }
        for (column, value) in row.enumerated() { columns[column].append(value) }
        for tag in recordTags {
            tagIDs.append(r.id)
            tags.append(tag)
        }
    }

    /// In `insertNew`'s order.
    var arguments: [SQLValue] { columns.map(PGArray.column) + [PGArray.text(tagIDs), PGArray.text(tags)] }
}
