import Foundation
import HeraldJSON
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
    /// The stored installation the batch updated for this registration (a known device re-registering);
    /// the write's body then has nothing left to do either.
    var updated: InstallationRecord?
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
/// row of one statement for the whole group, instead of three round trips of its own, and a known device
/// re-registering one row of one update. A statement's round trip costs both ends more CPU than the work
/// it carries: PostgreSQL's backends spent 245 µs per registration, of which its statements' execution
/// was 80 (docs/performance.md, "Round 16").
///
/// Before the group's writes run, `write` takes every lock the group's registrations need in one statement
/// (`PostgresStore.lockKeys`: the apps' shared locks, then the keys, sorted, as one registration takes
/// its own), then reads the stored installations that hold their installation ids and tokens, locking
/// their rows (statements whose snapshots follow the locks; all in the round trip of the transaction's
/// `BEGIN`). In one more round trip it inserts every registration that is new (whose installation id and
/// token neither a stored installation nor an earlier registration of the group has; its app must still
/// exist) and updates every plain re-registration (`knownUpdate`: found as alone, token unchanged, tags
/// given, its keys and its row's named by no other registration of the group). Each registration's body
/// then returns what was written for it, or, for the others (a new token, a token the group registers
/// twice), runs `PostgresStore.upsert` as it would alone, under the locks already held. The batch's rows
/// are written before the others' writes, which cannot reach them: no other registration of the group
/// names their keys. When the batch wrote every registration of the group, its statements carry the
/// transaction's `COMMIT`: the whole group is two round trips.
///
/// After an app's group that was all new devices, its next is expected to be too (`expectsAllNew`,
/// `RecentRegistrations`): its locks, and its insert on condition that no stored installation holds one of
/// its keys, go with the `COMMIT`, one round trip. If one is stored, nothing is inserted, the `COMMIT` ends an
/// empty transaction and the group runs again as above. Under row 4's load (new devices only) that was
/// ~7% more registrations a second and ~6 µs less of PostgreSQL's CPU per registration
/// (docs/performance.md, "Round 25").
///
/// Registrations are written together only in groups of registrations alone (another kind of write may change keys
/// this batch cannot see; updates and LeanCloud saves count as another kind, though the batch takes their
/// locks too); a lone update or save takes its own path. In a group that mixes registrations
/// with other writes, the batch still takes the registrations' locks first, so that a group always takes
/// its advisory locks before any row lock: otherwise a batched group, holding a later registration's key
/// and waiting for a row, and a mixed group, holding that row and waiting for the key, would deadlock.
struct RegistrationBatch: Sendable {
    let registrations: [PendingRegistration]
    /// The group is of registrations alone: its new devices are inserted together, its plain re-registrations
    /// updated together. In a group with writes of other kinds the batch only takes the registrations' locks.
    let writesTogether: Bool
    /// The group is expected to be all new devices (`RecentRegistrations`: the store's last group was) and can
    /// be written as such: registrations alone, of one app, no installation id or token named twice. Its locks,
    /// a check that none of its keys is stored and its insert then go with the `COMMIT`, in one round trip
    /// (`writeAllNew`), instead of the lookups' round trip and then the writes'.
    private(set) var expectsAllNew: Bool
    /// Where the batch records what its group turned out to be; nil: nothing expected, nothing recorded.
    private let recent: RecentRegistrations?

    /// A lone registration is a batch too: new or plainly known, it is two round trips (its locks and
    /// lookups with the `BEGIN`, its write with the `COMMIT`) instead of four, and one when expected new.
    init?(_ writes: [GroupCommit<PostgresConnection>.Write], recent: RecentRegistrations? = nil) {
        let registrations = writes.compactMap { $0.payload as? PendingRegistration }
        guard !registrations.isEmpty else { return nil }
        self.registrations = registrations
        self.recent = recent
        writesTogether = registrations.count == writes.count && registrations.allSatisfy(\.insertable)
        guard writes.count >= 2 || writesTogether else { return nil }
        let keys = registrations.flatMap(Self.keys(of:))
        expectsAllNew = writesTogether && registrations.allSatisfy { $0.appID == registrations[0].appID }
            && recent?.expectAllNew(appID: registrations[0].appID) == true && Set(keys).count == keys.count
    }

    /// A group that was expected to be all new and was not (`KeysNotNew`): the same batch, with its lookups.
    func lookingUpStoredKeys() -> RegistrationBatch {
        var batch = self
        batch.expectsAllNew = false
        return batch
    }

    /// A group expected to be all new names a stored installation id or token: its transaction committed with
    /// nothing written, and the group runs again with its lookups (`PostgresDatabase.commitGroup`).
    struct KeysNotNew: Error {}

    /// Takes the group's locks and writes what it can of its registrations, in the caller's transaction.
    /// Forgets what an earlier run of the transaction did first: that run was rolled back. Returns true when
    /// it committed the transaction too: it wrote every registration of the group, so its statements were
    /// the transaction's last and carried the `COMMIT` (one round trip fewer); each body then only answers.
    func write(_ db: PostgresConnection) throws -> Bool {
        forget()
        if expectsAllNew { return try writeAllNew(db) }
        let stored = try lockAndFindStored(db)
        return writesTogether ? try writeNewAndKnown(db, stored: stored) : false
    }

    /// Back to nothing done: each registration's body does all of its write.
    func forget() {
        for registration in registrations {
            registration.inserted = nil
            registration.updated = nil
            registration.appGone = false
            registration.locked = false
        }
    }

    /// The group's locks, then the stored installations that hold its installation ids and tokens, their
    /// rows locked: two statements per app (a group is nearly always of one app), each one index scan. All
    /// in one round trip, with the transaction's `BEGIN`; each statement's snapshot is taken when it starts,
    /// so the lookups see what was committed before the locks were granted.
    private func lockAndFindStored(_ db: PostgresConnection) throws -> StoredInstallations {
        let byApp = writesTogether ? Dictionary(grouping: registrations, by: \.appID).map { ($0.key, $0.value) } : []
        let lookups = byApp.flatMap { app, group in
            [PostgresConnection.Statement(Self.selectByInstallationIDs, [.text(app), PGArray.text(group.compactMap(\.draft.installationID))]),
             PostgresConnection.Statement(Self.selectByTokens, [.text(app), PGArray.text(group.compactMap(\.draft.deviceToken))])]
        }
        let results = try db.pipeline([lockStatement()] + lookups)
        for r in registrations { r.locked = true }
        var stored = StoredInstallations()
        for (index, result) in results.dropFirst().enumerated() {
            for row in result.rows(Self.installationWithTags) {
                if index % 2 == 0 {
                    stored.byInstallationID[Key(row.appID, iid: row.installationID)] = row
                } else if let token = row.deviceToken {
                    stored.byToken[Key(row.appID, token: token), default: []].append(row)
                }
            }
        }
        return stored
    }

    /// Every lock the group's registrations need, in one statement: the apps' shared locks, then the keys,
    /// each set sorted by bytes, as PostgreSQL compares them (Swift's `String` equality would merge two
    /// canonically equivalent keys into one lock).
    private func lockStatement() -> PostgresConnection.Statement {
        var apps = Set<ByteKey>(), keys = Set<ByteKey>()
        for r in registrations {
            apps.insert(ByteKey(PostgresStore.appLockKey(r.appID)))
            keys.formUnion(PostgresStore.lockKeys(appID: r.appID, draft: r.draft).map(ByteKey.init))
        }
        let ordered = (apps.sorted() + keys.sorted()).map(\.text)
        let shared = ordered.indices.map { $0 < apps.count }
        return PostgresConnection.Statement(Self.lockAll, [PGArray.text(ordered), PGArray.bool(shared)])
    }

    /// A group expected to be all new, in one round trip: its locks, then the insert of every registration
    /// on condition that no stored installation holds one of its installation ids or tokens
    /// (`insertNewIfNoneStored`), then the `COMMIT`. The condition's snapshot, like the lookups', follows the
    /// locks. If a key is stored, nothing is inserted, the `COMMIT` ends an empty transaction and this throws
    /// `KeysNotNew`; no error reaches PostgreSQL's log. A registration whose app was deleted meanwhile is not
    /// inserted (`appGone`).
    private func writeAllNew(_ db: PostgresConnection) throws -> Bool {
        let check: [SQLValue] = [.text(registrations[0].appID), PGArray.text(registrations.compactMap(\.draft.installationID)),
                                 PGArray.text(registrations.compactMap(\.draft.deviceToken))]
        do {
            let committed = try writeNewAndKnown(db, stored: StoredInstallations(), before: [lockStatement()], ifNoneStored: check)
            for r in registrations { r.locked = true }
            recent?.guessed(wrong: false)
            return committed
        } catch let notNew as KeysNotNew {
            forget()
            recent?.guessed(wrong: true)
            recent?.record(appIDs: [registrations[0].appID], allNew: false)
            throw notNew
        }
    }

    /// A row of `selectByInstallationIDs` or `selectByTokens`: the installation, then its tags as a JSON
    /// array (null for none), in the order `PostgresStore.withTags` reads them.
    private static func installationWithTags(_ row: PostgresRow) -> InstallationRecord {
        var record = PostgresStore.installation(row)
        if let json = row.optionalText(PostgresStore.installationColumnCount),
           let tags = (try? JSONValue(parsing: json))?.arrayValue {
            record.tags = tags.compactMap(\.stringValue)
        }
        return record
    }

    /// The group's stored installations, by the keys the group's registrations look them up with.
    private struct StoredInstallations {
        var byInstallationID: [Key: InstallationRecord] = [:]
        var byToken: [Key: [InstallationRecord]] = [:]

        func holds(_ key: Key) -> Bool { key.isToken ? byToken[key] != nil : byInstallationID[key] != nil }
    }

    /// Inserts the group's new devices and updates its plain re-registrations (`knownUpdate`), in one round
    /// trip, after the statements `before` (whose results are not kept). Returns true when that committed the
    /// transaction (every registration was one or the other). Records whether every registration was new.
    /// `ifNoneStored` (app, installation ids, tokens): the insert runs only if no stored installation holds one
    /// of them; else nothing is written and this throws `KeysNotNew` (`writeAllNew`).
    private func writeNewAndKnown(_ db: PostgresConnection, stored: StoredInstallations,
                                  before: [PostgresConnection.Statement] = [], ifNoneStored check: [SQLValue]? = nil) throws -> Bool {
        // Keys registered by an earlier registration of the group (stored ones are in `stored`).
        var taken = Set<Key>()
        var uses: [Key: Int] = [:]
        for registration in registrations {
            for key in Self.keys(of: registration) { uses[key, default: 0] += 1 }
        }
        var rows = NewInstallationColumns()
        var known = KnownInstallationColumns()
        var records: [String: (PendingRegistration, InstallationRecord, Set<String>?)] = [:]
        for registration in registrations {
            let (app, draft, now) = (registration.appID, registration.draft, registration.now)
            let keys = Self.keys(of: registration)
            let isNew = keys.allSatisfy { !taken.contains($0) && !stored.holds($0) }
            taken.formUnion(keys)
            guard isNew else {
                if let update = Self.knownUpdate(registration, stored: stored, uses: uses) {
                    known.append(update.record, tags: update.tags)
                    registration.updated = update.record.answering(written: update.tags, existed: true) { $0 }
                }
                continue
            }
            var record = InstallationRecord.new(appID: app, installationID: draft.installationID ?? registration.newID,
                                                id: registration.newID, createdAt: draft.createdAt, now: now)
            record.apply(draft, now: now)
            let tags = draft.tags.map(Set.init)
            rows.append(record, tags: tags ?? [])
            records[record.id] = (registration, record, tags)
        }
        let allNew = records.count == registrations.count
        let apps = Set(registrations.map(\.appID))
        guard !records.isEmpty || !known.isEmpty else {
            recent?.record(appIDs: apps, allNew: false)
            return false
        }
        let committing = records.count + known.count == registrations.count
        let insert = check.map { PostgresConnection.Statement(Self.insertNewIfNoneStored, rows.arguments + $0) }
            ?? PostgresConnection.Statement(Self.insertNew, rows.arguments)
        let statements = (records.isEmpty ? [] : [insert]) + known.statements
        let results = Array(try db.pipeline(before + statements, committing: committing).dropFirst(before.count))
        let inserted = records.isEmpty ? [] : results[0].rows({ (id: $0.optionalText(0), seq: $0.int64(1)) })
        // `insertNewIfNoneStored` answers a row without an id when a key was stored, and inserted nothing.
        if inserted.contains(where: { $0.id == nil }) { throw KeysNotNew() }
        recent?.record(appIDs: apps, allNew: allNew)
        for case let (id?, seq) in inserted {
            guard let (registration, record, tags) = records[id] else { continue }
            var stored = record
            stored.seq = seq
            registration.inserted = stored.answering(written: tags, existed: false) { $0 }
        }
        if committing {
            for registration in registrations where registration.inserted == nil && registration.updated == nil { registration.appGone = true }
        }
        return committing
    }

    /// The installation ids and tokens a registration's draft names.
    private static func keys(of registration: PendingRegistration) -> [Key] {
        let (app, draft) = (registration.appID, registration.draft)
        return [draft.installationID.map { Key(app, iid: $0) }, draft.deviceToken.map { Key(app, token: $0) }].compactMap { $0 }
    }

    /// A known device re-registering, if the batch can write it as `PostgresStore.upsert` would: the stored
    /// installation found as upsert finds it (by installation id, else the one holding the token) and its
    /// token unchanged (nothing to take from another row); its tags replaced if given, else kept (read with
    /// the row). Neither its keys nor the found row's are named by another registration of the group, so no
    /// other write of the group reaches that row. Anything else (a new token, a reinstall adopting a row,
    /// a token two rows hold) is left to the registration's own write.
    private static func knownUpdate(_ registration: PendingRegistration, stored: StoredInstallations,
                                    uses: [Key: Int]) -> (record: InstallationRecord, tags: Set<String>?)? {
        let (app, draft) = (registration.appID, registration.draft)
        let found: InstallationRecord
        if let iid = draft.installationID {
            guard let row = stored.byInstallationID[Key(app, iid: iid)] else { return nil }
            found = row
        } else if let token = draft.deviceToken, let rows = stored.byToken[Key(app, token: token)], rows.count == 1 {
            found = rows[0]
        } else {
            return nil
        }
        guard draft.deviceToken == nil || draft.deviceToken == found.deviceToken else { return nil }
        let own = keys(of: registration)
        let reached = Set(own + [Key(app, iid: found.installationID)] + (found.deviceToken.map { [Key(app, token: $0)] } ?? []))
        guard reached.allSatisfy({ uses[$0, default: 0] == (own.contains($0) ? 1 : 0) }) else { return nil }
        var record = found
        record.apply(draft, now: registration.now)
        return (record, draft.tags.map(Set.init))
    }

    /// An installation id or a token of an app, by bytes (as PostgreSQL compares them).
    private struct Key: Hashable {
        let app: ByteKey, isToken: Bool, value: ByteKey
        init(_ app: String, iid: String) { (self.app, isToken, value) = (ByteKey(app), false, ByteKey(iid)) }
        init(_ app: String, token: String) { (self.app, isToken, value) = (ByteKey(app), true, ByteKey(token)) }
    }

    // The lookups lock every row holding one of the group's keys, a few more than its registrations alone
    // would (a second holder of an unchanged token). A transaction locking such rows in another order (a
    // fan-out's badge update goes by seq) can deadlock with the group, as with registrations alone:
    // PostgreSQL breaks it after `deadlock_timeout` and the group runs again.

    /// The installations of app $1 that have one of the installation ids $2, their rows locked, with their tags.
    static let selectByInstallationIDs =
        "SELECT \(PostgresStore.installationColumns), \(tagsOfRow) FROM installations i WHERE app_id = $1 AND installation_id = ANY($2::text[]) FOR UPDATE"
    /// The installations of app $1 that hold one of the tokens $2, their rows locked, with their tags.
    static let selectByTokens =
        "SELECT \(PostgresStore.installationColumns), \(tagsOfRow) FROM installations i WHERE app_id = $1 AND device_token = ANY($2::text[]) FOR UPDATE"
    /// A row's tags as a JSON array, ordered as `PostgresStore.withTags` reads them; read after the row's lock.
    private static let tagsOfRow =
        "(SELECT json_agg(t.tag ORDER BY t.tag)::text FROM installation_tags t WHERE t.app_id = i.app_id AND t.seq = i.seq)"

    /// Stored installations ($1-$19, a column each, as `PostgresStore.writtenColumns`) written again, by $20 seq.
    /// The `= ANY` makes the generic plan find the rows by their key: joined with the `unnest` alone, it was a
    /// hash join over the whole table (0.9 ms a group in a registry of 20,000).
    static let updateKnown = """
        UPDATE installations AS i SET installation_id = u.installation_id, device_token = u.device_token, environment = u.environment,
            topic = u.topic, alias = u.alias, user_id = u.user_id, locale = u.locale, time_zone = u.time_zone, badge = u.badge,
            app_version = u.app_version, os_version = u.os_version, device_model = u.device_model, properties = u.properties,
            active = u.active, inactive_reason = u.inactive_reason, inactive_at = u.inactive_at, updated_at = u.updated_at,
            last_seen_at = u.last_seen_at, token_updated_at = u.token_updated_at
        FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[],
            $10::text[], $11::text[], $12::text[], $13::text[], $14::boolean[], $15::text[], $16::float8[], $17::float8[],
            $18::float8[], $19::float8[], $20::bigint[])
        AS u(installation_id, device_token, environment, topic, alias, user_id, locale, time_zone, badge, app_version, os_version,
             device_model, properties, active, inactive_reason, inactive_at, updated_at, last_seen_at, token_updated_at, seq)
        WHERE i.seq = u.seq AND i.seq = ANY($20::bigint[])
        """
    /// The tags of the installations with seqs $1 (unique across apps), before their new ones go in.
    static let deleteKnownTags = "DELETE FROM installation_tags WHERE seq = ANY($1::bigint[])"
    /// Tags $2 of the installations of apps $1 with seqs $3 (three parallel arrays).
    static let insertKnownTags =
        "INSERT INTO installation_tags (app_id, tag, seq) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])"

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
    static let insertNew = "WITH " + inserting(onlyIf: "") + " SELECT id, seq FROM inserted"

    /// `insertNew`, only if no stored installation of app $25 holds one of the installation ids $26 or tokens
    /// $27; when one does, nothing is inserted and the answer is one row without an id. The two counts are
    /// shaped as the two lookups (`selectByInstallationIDs`, `selectByTokens`) so that each walks its own
    /// index: with `OR` in one condition the group's generic plan walked every row of the app (PostgreSQL's
    /// CPU per registration 62-66 -> 189-220 µs under row 4's load). Every part of one statement sees one
    /// snapshot, so the counts see the stored rows and not the ones this statement inserts.
    static let insertNewIfNoneStored = """
        WITH stored AS (
            SELECT (SELECT count(*) FROM installations WHERE app_id = $25 AND installation_id = ANY($26::text[]))
                 + (SELECT count(*) FROM installations WHERE app_id = $25 AND device_token = ANY($27::text[])) AS n),
        """ + inserting(onlyIf: " AND (SELECT n FROM stored) = 0")
        + " SELECT id, seq FROM inserted UNION ALL SELECT NULL, n FROM stored WHERE n > 0"

    /// The `inserted` and `tagged` parts of a `WITH` that inserts new installations and their tags.
    private static func inserting(onlyIf condition: String) -> String {
        """
        inserted AS (
            INSERT INTO installations (installation_id, device_token, environment, topic, alias, user_id, locale, time_zone,
            badge, app_version, os_version, device_model, properties, active, inactive_reason, inactive_at, updated_at,
            last_seen_at, token_updated_at, id, app_id, created_at)
            SELECT c.* FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                $8::text[], $9::bigint[], $10::text[], $11::text[], $12::text[], $13::text[], $14::boolean[], $15::text[],
                $16::float8[], $17::float8[], $18::float8[], $19::float8[], $20::text[], $21::text[], $22::float8[])
            AS c(installation_id, device_token, environment, topic, alias, user_id, locale, time_zone, badge, app_version,
                 os_version, device_model, properties, active, inactive_reason, inactive_at, updated_at, last_seen_at,
                 token_updated_at, id, app_id, created_at)
            WHERE EXISTS (SELECT 1 FROM apps WHERE apps.id = c.app_id)\(condition)
            RETURNING seq, id, app_id),
        tagged AS (
            INSERT INTO installation_tags (app_id, tag, seq)
            SELECT inserted.app_id, t.tag, inserted.seq FROM inserted JOIN unnest($23::text[], $24::text[]) AS t(id, tag) ON t.id = inserted.id)
        """
    }
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

/// Known installations written again (`RegistrationBatch.knownUpdate`), as `updateKnown`'s parameters, and
/// their tags replaced.
private struct KnownInstallationColumns {
    private var columns: [[SQLValue]] = []
    private var seqs: [Int64] = []
    /// The installations whose tags are replaced (their registration gave tags).
    private var retagged: [Int64] = []
    private var tagApps: [String] = []
    private var tags: [String] = []
    private var tagSeqs: [Int64] = []

    var count: Int { seqs.count }
    var isEmpty: Bool { seqs.isEmpty }

    mutating func append(_ r: InstallationRecord, tags recordTags: Set<String>?) {
        let row = PostgresStore.writtenColumns(r)
        if columns.isEmpty { columns = Array(repeating: [], count: row.count) }
        for (column, value) in row.enumerated() { columns[column].append(value) }
        seqs.append(r.seq)
        guard let recordTags else { return }
        retagged.append(r.seq)
        for tag in recordTags {
            tagApps.append(r.appID)
            tags.append(tag)
            tagSeqs.append(r.seq)
        }
    }

    /// The update, the replaced tags' delete and the new tags' insert (each only when it has rows).
    var statements: [PostgresConnection.Statement] {
        guard !isEmpty else { return [] }
        var out: [PostgresConnection.Statement] = [.init(RegistrationBatch.updateKnown, columns.map(PGArray.column) + [PGArray.int(seqs)])]
        if !retagged.isEmpty { out.append(.init(RegistrationBatch.deleteKnownTags, [PGArray.int(retagged)])) }
        if !tags.isEmpty {
            out.append(.init(RegistrationBatch.insertKnownTags, [PGArray.text(tagApps), PGArray.text(tags), PGArray.int(tagSeqs)]))
        }
        return out
    }
}
