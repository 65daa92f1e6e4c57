import Foundation
import Synchronization
import Testing
@testable import HeraldStore
@testable import HeraldPostgres

/// What only the PostgreSQL store has: several processes' worth of concurrency on one database, the
/// migration lock, and URLs that may carry passwords.
@Suite struct PostgresStoreTests {
    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func nodesStartingTogetherApplyEachMigrationOnce() async throws {
        let url = try await TestPostgres.freshDatabase()
        let versions = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 { group.addTask { try await PostgresStore(url: url, poolSize: 1).schemaVersion() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(versions == Array(repeating: PostgresSchema.migrations.map(\.version).max()!, count: 4))
        let store = try await PostgresStore(url: url, poolSize: 1)
        let rows = try await store.database.read { try $0.first("SELECT count(*) FROM schema_migrations") { $0.int(0) } }
        #expect(rows == PostgresSchema.migrations.count)
    }

    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func concurrentRegistrationsOfOneDeviceMakeOneInstallation() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 4)
        try await makeApp(store)
        // More callers than connections: they queue for the pool, and the same installation id and token
        // from all of them must not trip the unique indexes.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<12 {
                group.addTask { _ = try await register(store, iid: "same", token: "t-same", tags: ["n\(n % 3)"]) }
                group.addTask { _ = try await register(store, iid: "other-\(n)", token: "t-\(n)") }
            }
            try await group.waitForAll()
        }
        #expect(try await store.installationCount(appID: "app1") == 13)
        let same = try #require(try await store.installation(appID: "app1", id: "same"))
        #expect(same.active && same.tags.count == 1)
    }

    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func concurrentIdempotentPushesCreateOne() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 4)
        try await makeApp(store)
        let created = try await withThrowingTaskGroup(of: Bool.self) { group in
            for n in 0..<8 {
                group.addTask {
                    try await store.insertPush(PushRecord(id: "p\(n)", appID: "app1", idempotencyKey: "k", request: "{}", status: .queued,
                                                          createdAt: t0, sendAt: nil, expiresAt: nil), idempotentSince: t0).created
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(created == 1)
    }

    /// A registry that fills from empty gets statistics once the store created `RegistryStatistics.rows`
    /// installations, so the plan PostgreSQL caches for the registration's token lookup reads the (app,
    /// token) index instead of walking every installation of the app (a new store's registrations slowed
    /// down with every row until autovacuum's next round).
    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func aRegistryFilledFromEmptyKeepsItsTokenLookupOnTheTokenIndex() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 4)
        try await makeApp(store)
        // Only Herald analyzes these tables here: autovacuum's round could otherwise come first (and pass the
        // plan check alone) on a slow run.
        try await store.database.withConnection { db in
            try db.executeScript("""
                ALTER TABLE installations SET (autovacuum_enabled = false);
                ALTER TABLE installation_tags SET (autovacuum_enabled = false);
                """)
        }
        let rows = store.registryStatistics.rows
        #expect(try await Self.genericTokenLookupPlan(store).contains("installations_app_seq"),
                "without statistics, the cached plan walks the app's rows: the case this guards against")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for n in stride(from: worker, to: rows, by: 8) { _ = try await register(store, iid: "i-\(n)", token: "t-\(n)") }
                }
            }
            try await group.waitForAll()
        }
        // The check started by the last registration (PostgreSQL's own `last_analyze` is published up to 10 s late).
        let analyzed = await store.registryStatistics.analysis.withLock { $0 }?.value
        #expect(analyzed == true, "the registry was analyzed after \(rows) registrations")
        let plan = try await Self.genericTokenLookupPlan(store)
        #expect(plan.contains("installations_app_token") && !plan.contains("installations_app_seq"), "\(plan)")
        #expect(try await store.analyzeRegistryIfUnmeasured() == false, "statistics that count the rows are left alone")
    }

    /// A group of registrations inserts its new devices in one statement (`RegistrationBatch`): those that
    /// are the group's first with their installation id and token and that no stored installation has. It
    /// takes every registration's locks and leaves the rest to their own writes.
    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func aGroupInsertsItsNewDevicesTogetherAndLeavesTheRestToTheirOwnWrites() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 2)
        try await makeApp(store)
        try await makeApp(store, id: "app2")
        let stored = try await register(store, iid: "old", token: "aa")
        var tagged = InstallationDraft(installationID: "i-1", deviceToken: "b1", environment: "sandbox")
        tagged.tags = ["y", "x", "y"]
        tagged.badge = 2
        let drafts: [(app: String, draft: InstallationDraft)] = [
            ("app1", tagged),                                               // new
            ("app1", InstallationDraft(installationID: "i-2", deviceToken: "aa")),   // a stored token: its own write
            ("app1", InstallationDraft(installationID: "i-3", deviceToken: "b1")),   // the group's second "b1": its own write
            ("app1", InstallationDraft(deviceToken: "c1")),                 // new, token only
            ("app1", InstallationDraft(installationID: "old")),             // a stored installation id: its own write
            ("app2", InstallationDraft(installationID: "i-1", deviceToken: "b1")),   // another app's registry: new there
            ("gone", InstallationDraft(deviceToken: "d1")),                 // no such app: nothing inserted
        ]
        let pending = drafts.enumerated().map { n, d in PendingRegistration(appID: d.app, draft: d.draft, newID: "n\(n)", now: t0, insertable: true) }
        let writes = pending.map { GroupCommit<PostgresConnection>.Write(payload: $0, body: { _ in }, answer: { _ in }) }
        let batch = try #require(RegistrationBatch(writes))
        // Not every registration is new: the transaction stays open for the others' writes.
        #expect(try await store.database.write { db in try batch.write(db) } == false)
        #expect(pending.map { $0.inserted?.id } == ["n0", nil, nil, "n3", nil, "n5", nil])
        #expect(pending.filter(\.locked).count == pending.count)
        let answered = try #require(pending[0].inserted)
        #expect(answered.tags == ["x", "y"] && answered.badge == 2 && answered.environment == "sandbox" && answered.seq > stored.seq)
        let read = try #require(try await store.installation(appID: "app1", id: "n0"))
        #expect(read.seq == answered.seq && read.tags == answered.tags && read.deviceToken == "b1" && read.installationID == "i-1")
        #expect(try await store.installation(appID: "app1", id: "n3")?.installationID == "n3")
        #expect(try await store.installationCount(appID: "app1") == 3)
        #expect(try await store.installationCount(appID: "app2") == 1)
        batch.forget()
        #expect(pending.filter { $0.inserted != nil || $0.locked }.isEmpty)
        // A lone update or save has no batch (a lone registration has: new, it commits with its insert); in
        // a group with a write of another kind, the batch takes the registrations' locks (before any row
        // lock of the group) and inserts nothing.
        let loneSave = PendingRegistration(appID: "app1", draft: InstallationDraft(deviceToken: "aa"), newID: "s0", now: t0, insertable: false)
        #expect(RegistrationBatch([GroupCommit<PostgresConnection>.Write(payload: loneSave, body: { _ in }, answer: { _ in })]) == nil)
        #expect(RegistrationBatch(Array(writes.prefix(1)))?.writesTogether == true)
        let fresh = PendingRegistration(appID: "app1", draft: InstallationDraft(deviceToken: "e1"), newID: "m0", now: t0, insertable: true)
        let mixedWrites = [GroupCommit<PostgresConnection>.Write(payload: nil, body: { _ in }, answer: { _ in }),
                           GroupCommit<PostgresConnection>.Write(payload: fresh, body: { _ in }, answer: { _ in })]
        let mixed = try #require(RegistrationBatch(mixedWrites))
        #expect(try await store.database.write { db in try mixed.write(db) } == false)
        #expect(fresh.locked && fresh.inserted == nil && !mixed.writesTogether)
        // An update or a LeanCloud save in the group is locked with the registrations; nothing is inserted.
        let save = PendingRegistration(appID: "app1", draft: InstallationDraft(deviceToken: "f1"), newID: "m1", now: t0, insertable: false)
        let other = PendingRegistration(appID: "app1", draft: InstallationDraft(deviceToken: "f2"), newID: "m2", now: t0, insertable: true)
        let withSave = try #require(RegistrationBatch([save, other].map { GroupCommit<PostgresConnection>.Write(payload: $0, body: { _ in }, answer: { _ in }) }))
        #expect(try await store.database.write { db in try withSave.write(db) } == false)
        #expect(save.locked && other.locked && other.inserted == nil && !withSave.writesTogether)
    }

    /// A group whose registrations are all new sends its insert with the transaction's `COMMIT`: the batch
    /// says it committed, the rows are stored, and a registration of an app deleted before it is answered
    /// "not found" with nothing stored. Through the store, a lone new device and a group of them alike.
    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func aGroupOfNewDevicesCommitsWithItsInsert() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 2)
        try await makeApp(store)
        let pending = [("app1", "a1"), ("app1", "a2"), ("gone", "a3")].enumerated().map { n, d in
            PendingRegistration(appID: d.0, draft: InstallationDraft(deviceToken: d.1), newID: "n\(n)", now: t0, insertable: true)
        }
        let batch = try #require(RegistrationBatch(pending.map { GroupCommit<PostgresConnection>.Write(payload: $0, body: { _ in }, answer: { _ in }) }))
        #expect(try await store.database.write { db in try batch.write(db) })
        #expect(pending.map { $0.inserted?.deviceToken } == ["a1", "a2", nil] && pending.map(\.appGone) == [false, false, true])
        #expect(try await store.installationCount(appID: "app1") == 2)

        let lone = try await store.upsertInstallation(appID: "app1", draft: InstallationDraft(deviceToken: "b1"), match: .installationIDOrToken,
                                                      newID: "lone", now: t0)
        #expect(lone.created && lone.0.id == "lone")
        #expect(try await store.installation(appID: "app1", id: "lone")?.seq == lone.0.seq)
        await #expect(throws: StoreError.notFound) {
            _ = try await store.upsertInstallation(appID: "gone", draft: InstallationDraft(deviceToken: "b2"), match: .installationIDOrToken,
                                                   newID: "late", now: t0)
        }
        // The same device again is known: its own write runs after the batch's locks, in the open transaction.
        var known = InstallationDraft(deviceToken: "b1")
        known.badge = 4
        let again = try await store.upsertInstallation(appID: "app1", draft: known, match: .installationIDOrToken, newID: "other", now: t0)
        #expect(!again.created && again.0.id == "lone" && again.0.badge == 4)
        #expect(try await store.installationCount(appID: "app1") == 3)
    }

    /// A group writes its known devices' plain re-registrations together too (their stored rows read and
    /// locked with the group's lookups, one update for all): found as a registration alone finds them, the
    /// token unchanged, and no other registration of the group naming their keys; tags replaced when given,
    /// else kept. The rest
    /// are left to their own writes; a group of new and plainly known devices alone commits with its writes.
    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func aGroupUpdatesItsKnownDevicesTogetherAndLeavesTheRestToTheirOwnWrites() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 2)
        let t1 = t0.addingTimeInterval(60)
        try await makeApp(store)
        let a = try await register(store, iid: "a", token: "ta", tags: ["old"])
        var tokenOnly = InstallationDraft(deviceToken: "tb")
        tokenOnly.tags = ["kept"]
        let b = try await store.upsertInstallation(appID: "app1", draft: tokenOnly, match: .installationIDOrToken, newID: "b", now: t0).0
        _ = try await register(store, iid: "c", token: "tc", tags: ["c"])
        let d = try await register(store, iid: "d", token: "td", tags: ["d", "c"])
        _ = try await register(store, iid: "g", token: "tg")
        func draft(_ iid: String?, _ token: String?, _ tags: [String]?, badge: Int? = nil) -> InstallationDraft {
            var d = InstallationDraft(installationID: iid, deviceToken: token, environment: "production")
            d.tags = tags
            d.badge = badge
            return d
        }
        let drafts = [
            draft("a", "ta", ["new", "b"], badge: 3),   // known by installation id: batched
            draft(nil, "tb", []),                       // known by token alone: batched, its tags cleared
            draft("c", "tc2", ["x"]),                   // a new token: its own write (the token's other holders)
            draft(nil, "td", nil, badge: 5),            // no tags: batched, its tags kept (and answered)
            draft(nil, "te", ["n"]),                    // new: inserted
            draft(nil, "tg", ["g1"]),                   // one device named twice in the group: both their own writes
            draft("g", nil, ["g2"]),
        ]
        let pending = drafts.enumerated().map { n, d in PendingRegistration(appID: "app1", draft: d, newID: "n\(n)", now: t1, insertable: true) }
        let batch = try #require(RegistrationBatch(pending.map { GroupCommit<PostgresConnection>.Write(payload: $0, body: { _ in }, answer: { _ in }) }))
        #expect(try await store.database.write { db in try batch.write(db) } == false)
        #expect(pending.map { $0.updated?.id } == [a.id, b.id, nil, d.id, nil, nil, nil])
        #expect(pending.map { $0.inserted != nil } == [false, false, false, false, true, false, false])
        #expect(pending.filter(\.locked).count == pending.count)
        let answered = try #require(pending[0].updated)
        #expect(answered.tags == ["b", "new"] && answered.badge == 3 && answered.seq == a.seq && answered.updatedAt == t1)
        let readA = try #require(try await store.installation(appID: "app1", id: a.id))
        #expect(readA.tags == ["b", "new"] && readA.badge == 3 && readA.deviceToken == "ta" && readA.createdAt == a.createdAt)
        #expect(try await store.installation(appID: "app1", id: b.id)?.tags == [])
        #expect(pending[1].updated?.tags == [] && pending[1].updated?.installationID == b.installationID)
        #expect(pending[3].updated?.tags == ["c", "d"] && pending[3].updated?.badge == 5)
        let readD = try #require(try await store.installation(appID: "app1", id: d.id))
        #expect(readD.tags == ["c", "d"] && readD.badge == 5 && readD.updatedAt == t1)
        // Known and new alone: the writes carry the COMMIT.
        let second = [draft("a", "ta", ["z"]), draft(nil, "th", ["h"])].enumerated().map { n, d in
            PendingRegistration(appID: "app1", draft: d, newID: "m\(n)", now: t1, insertable: true)
        }
        let both = try #require(RegistrationBatch(second.map { GroupCommit<PostgresConnection>.Write(payload: $0, body: { _ in }, answer: { _ in }) }))
        #expect(try await store.database.write { db in try both.write(db) })
        #expect(try await store.installation(appID: "app1", id: a.id)?.tags == ["z"])
        #expect(try await store.installation(appID: "app1", id: "m1")?.deviceToken == "th")
    }

    /// Updates and LeanCloud saves of one installation, some found by id (a row lock only) and some by its
    /// token (an advisory lock first), racing in group transactions on two lanes: each group takes every
    /// advisory lock before any row lock, so no two groups deadlock (PostgreSQL counts the deadlocks it
    /// breaks; each cost a second and a rerun), and every save counts once.
    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func savesAndUpdatesOfOneInstallationInGroupsNeverDeadlock() async throws {
        let url = try await TestPostgres.freshDatabase()
        let store = try await PostgresStore(url: url, poolSize: 8)   // two lanes
        #expect(PostgresStore.registrationLanes(poolSize: 8) == 2)
        try await makeApp(store)
        let device = try await register(store, iid: "i-1", token: "aa")
        func deadlocks() async throws -> Int {
            let observer = try await PostgresStore(url: url, poolSize: 1)
            defer { Task { await observer.close() } }
            return try await observer.database.read { db in
                _ = try db.execute("SELECT pg_stat_clear_snapshot()")
                return try db.first("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()") { $0.int(0) } ?? -1
            }
        }
        let before = try await deadlocks()
        // In waves of six, so that two lanes run small groups side by side, each holding a few of the locks.
        // (With saves and updates left out of the batch's locks, three runs in four of this counted deadlocks.)
        for wave in 0..<60 {
          try await withThrowingTaskGroup(of: Void.self) { group in
            for i in (wave * 6)..<(wave * 6 + 6) {
                group.addTask {
                    switch i % 3 {
                    case 0:
                        let save = InstallationSave(ids: [device.id], activeToken: nil, mustExist: true, installationID: nil, deviceToken: nil) {
                            var d = InstallationDraft()
                            d.badge = ($0?.badge ?? 0) + 1
                            return d
                        }
                        _ = try await store.saveInstallation(appID: "app1", save, newID: UUID().uuidString, now: t0)
                    case 1:
                        let save = InstallationSave(ids: [], activeToken: "aa", mustExist: false, installationID: nil, deviceToken: "aa") {
                            var d = InstallationDraft()
                            d.badge = ($0?.badge ?? 0) + 1
                            return d
                        }
                        _ = try await store.saveInstallation(appID: "app1", save, newID: UUID().uuidString, now: t0)
                    default:
                        var update = InstallationDraft()
                        update.alias = "a\(i)"
                        _ = try await store.upsertInstallation(appID: "app1", draft: update, match: .existing(device.id), newID: "unused", now: t0)
                    }
                }
            }
            try await group.waitForAll()
          }
        }
        await store.close()   // its backends report their statistics as they end
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await deadlocks() - before == 0)
        let reopened = try await PostgresStore(url: url, poolSize: 1)
        #expect(try await reopened.installation(appID: "app1", id: device.id)?.badge == 240)
        #expect(try await reopened.installationCount(appID: "app1") == 1)
        await reopened.close()
    }

    /// A burst of registrations through the store, on one lane so that they queue into large groups:
    /// re-registrations, a token registered twice, and one whose new id is taken (its group's batch fails,
    /// and the group runs again one write at a time). Each answers and stores what registering alone does.
    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func aBurstOfRegistrationsAnswersAsEachAloneWhateverItsGroups() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 2)
        try await makeApp(store)
        let stored = try await register(store, iid: "old", token: "aa", tags: ["old"])
        let results = await withTaskGroup(of: (Int, Result<InstallationRecord, Error>).self) { group in
            for i in 0..<120 {
                group.addTask {
                    var draft = InstallationDraft(installationID: "i-\(i)", deviceToken: String(format: "%04x", i), environment: "production")
                    if i % 40 == 5 { draft.deviceToken = "aa" }        // adopts or takes over the stored token
                    if i % 40 == 6 { draft.deviceToken = "0000" }      // the token of i = 0, again
                    draft.tags = ["t\(i % 3)"]
                    let newID = i == 77 ? stored.id : "n-\(i)"         // taken: this registration fails
                    do {
                        return (i, .success(try await store.upsertInstallation(appID: "app1", draft: draft, match: .installationIDOrToken,
                                                                               newID: newID, now: t0).0))
                    } catch {
                        return (i, .failure(error))
                    }
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(throws: (any Error).self) { try results[77]!.get() }
        for i in 0..<120 where i != 77 {
            let record = try results[i]!.get()
            #expect(record.installationID == "i-\(i)" && record.tags == ["t\(i % 3)"])
            #expect(try await store.installation(appID: "app1", id: record.id)?.seq == record.seq)
        }
        // One installation per token: "aa" and "0000" each ended on one row, whichever registration came last.
        let holders = try await store.installations(appID: "app1", query: InstallationQuery(deviceToken: "aa", limit: 10))
        #expect(holders.count == 1)
        let zeros = try await store.installations(appID: "app1", query: InstallationQuery(deviceToken: "0000", limit: 10))
        #expect(zeros.count == 1)
        // A registration whose installation id is unknown but whose token is stored adopts that row: "aa"'s three
        // end on "old"'s row, and the four of "0000" on one row. 113 tokens of their own (i = 0 among them), and "aa".
        #expect(try await store.installationCount(appID: "app1") == 114)
    }

    /// Statements sent together (libpq's pipeline mode) answer in order, with the transaction's deferred
    /// `BEGIN` ahead of them; one that fails there is thrown, rolls the whole transaction back, stops the
    /// ones after it, and leaves the connection usable (the pool's only one here).
    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func statementsSentTogetherAnswerInOrderAndAFailureLeavesTheConnectionUsable() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 1)
        try await store.database.write { try $0.executeScript("CREATE TABLE pipelined (n int PRIMARY KEY)") }
        let insert = "INSERT INTO pipelined VALUES ($1)"
        let counted = try await store.database.write { db in
            try db.pipeline([.init(insert, [.int(1)]), .init("SELECT count(*), max(n) FROM pipelined")])[1].rows { [$0.int(0), $0.int(1)] }
        }
        #expect(counted == [[1, 1]])
        let error = await #expect(throws: PostgresError.self) {
            try await store.database.write { db in
                _ = try db.pipeline([.init(insert, [.int(2)]), .init(insert, [.int(1)]), .init(insert, [.int(3)])])
            }
        }
        #expect(error?.sqlState == "23505")
        #expect(try await store.database.read { try $0.all("SELECT n FROM pipelined ORDER BY n") { $0.int(0) } } == [1])
        // A transaction that ran nothing ends without a COMMIT; one whose first statement is a script sends
        // its BEGIN alone, and a failure after it still rolls back.
        try await store.database.write { _ in }
        await #expect(throws: PostgresError.self) {
            try await store.database.write { db in
                try db.executeScript("INSERT INTO pipelined VALUES (5)")
                try db.execute(insert, [.int(1)])
            }
        }
        try await store.database.write { db in try db.executeScript("INSERT INTO pipelined VALUES (6)") }
        #expect(try await store.database.read { try $0.all("SELECT n FROM pipelined ORDER BY n") { $0.int(0) } } == [1, 6])
        // Statements sent with the COMMIT: stored when all ran (and the next transaction runs as usual), nothing
        // when one failed.
        try await store.database.write { db in _ = try db.pipeline([.init(insert, [.int(7)]), .init(insert, [.int(8)])], committing: true) }
        await #expect(throws: PostgresError.self) {
            try await store.database.write { db in _ = try db.pipeline([.init(insert, [.int(9)]), .init(insert, [.int(6)])], committing: true) }
        }
        try await store.database.write { db in try db.execute(insert, [.int(10)]) }
        #expect(try await store.database.read { try $0.all("SELECT n FROM pipelined ORDER BY n") { $0.int(0) } } == [1, 6, 7, 8, 10])
        // A statement after that COMMIT is refused (it would run outside the transaction); what committed stays.
        await #expect(throws: StatementAfterCommit.self) {
            try await store.database.write { db in
                _ = try db.pipeline([.init(insert, [.int(11)])], committing: true)
                try db.execute(insert, [.int(12)])
            }
        }
        #expect(try await store.database.read { try $0.all("SELECT n FROM pipelined ORDER BY n") { $0.int(0) } } == [1, 6, 7, 8, 10, 11])
    }

    /// A write that keeps losing races (a deadlock each time, as two registration groups on different
    /// connections can) runs again a few times, then fails as "unavailable" (a 503 the client may retry),
    /// not as a raw PostgreSQL error (a 500).
    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func aWriteThatKeepsLosingRacesIsUnavailable() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 1)
        let runs = Mutex(0)
        await #expect(throws: StoreError.self) {
            try await store.database.write { _ in
                runs.withLock { $0 += 1 }
                throw PostgresError(sqlState: "40P01", message: "deadlock detected")
            }
        }
        #expect(runs.withLock { $0 } == PostgresDatabase.retries + 1)
        let error = await #expect(throws: StoreError.self) {
            try await store.database.write { _ in throw PostgresError(sqlState: "40001", message: "could not serialize access") }
        }
        guard case .unavailable(let message)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(message.contains("try again"))
        // A write that wins after a lost race commits as usual.
        let attempts = Mutex(0)
        let value = try await store.database.write { _ in
            if attempts.withLock({ $0 += 1; return $0 }) < 3 { throw PostgresError(sqlState: "40P01", message: "deadlock detected") }
            return 7
        }
        #expect(value == 7 && attempts.withLock { $0 } == 3)
    }

    /// The plan PostgreSQL would cache for the registration's lookup by token (the store's own statement).
    static func genericTokenLookupPlan(_ store: PostgresStore) async throws -> String {
        try await store.database.withConnection { db in
            try db.executeScript("""
                SET plan_cache_mode = force_generic_plan;
                PREPARE herald_test_lookup(text, text) AS \(PostgresStore.selectByToken)
                """)
            defer { try? db.executeScript("DEALLOCATE herald_test_lookup; RESET plan_cache_mode") }
            return try db.all("EXPLAIN EXECUTE herald_test_lookup('app1', 'none')") { $0.text(0) }.joined(separator: "\n")
        }
    }

    @Test func passwordsAreRedacted() {
        #expect(PostgresStore.redacted("postgres://herald:s3cr%40t@db.example:5432/herald?sslmode=require")
                == "postgres://herald:***@db.example:5432/herald?sslmode=require")
        #expect(PostgresStore.redacted("postgresql://herald@db/herald?password=hunter2&sslmode=verify-full")
                == "postgresql://herald@db/herald?password=***&sslmode=verify-full")
        #expect(PostgresStore.redacted("host=db user=herald password='a b\\' c' dbname=herald")
                == "host=db user=herald password=*** dbname=herald")
        #expect(PostgresStore.redacted("postgresql:///herald") == "postgresql:///herald")
    }

    @Test func aFailedConnectionNamesTheServerButNotThePassword() async throws {
        // Port 1 on localhost: nothing listens there, so libpq fails at once.
        let error = await #expect(throws: PostgresError.self) {
            _ = try await PostgresStore(url: "postgresql://herald:topsecret@127.0.0.1:1/herald?connect_timeout=2")
        }
        let text = String(describing: try #require(error))
        #expect(text.contains("127.0.0.1:1"))
        #expect(!text.contains("topsecret"))
    }
}
