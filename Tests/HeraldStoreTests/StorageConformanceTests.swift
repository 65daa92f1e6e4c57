import Foundation
import Testing
@testable import HeraldStore

/// The storage contract (`HeraldStorage`), run against every store: SQLite, and PostgreSQL when a test
/// server is configured. Each test starts from an empty database of its own.
@Suite struct StorageConformanceTests {
    @Test(arguments: StoreKind.available) func migrationsRunOnceAndSurviveReopen(_ kind: StoreKind) async throws {
        let fresh = try await kind.makeStore()
        let store = fresh.store
        #expect(try await store.schemaVersion() == fresh.schemaVersion)
        try await makeApp(store)
        let reopened = try await fresh.reopen()
        #expect(try await reopened.schemaVersion() == fresh.schemaVersion)
        #expect(try await reopened.app(id: "app1")?.name == "app1")
    }

    @Test(arguments: StoreKind.available) func upsertMatchesByInstallationIDThenToken(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        let first = try await register(store, iid: "i-1", token: "aa", tags: ["news"])
        let again = try await register(store, iid: "i-1", token: "bb", tags: ["sport", "news"])
        #expect(again.id == first.id)
        #expect(again.deviceToken == "bb")
        #expect(again.tags == ["news", "sport"])
        // A reinstall: new installation id, same token: the row is adopted, not duplicated.
        let reinstall = try await register(store, iid: "i-2", token: "bb")
        #expect(reinstall.id == first.id)
        #expect(reinstall.installationID == "i-2")
        #expect(try await store.installationCount(appID: "app1") == 1)
    }

    /// An upsert answers from what it wrote (no read back): the same tags, in the same order, as a read of
    /// the stored row gives, byte order included; an update that sends no tags answers with the stored ones.
    @Test(arguments: StoreKind.available) func anUpsertAnswersWithTheTagsAReadGives(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        let tagged = try await register(store, iid: "i-1", token: "aa", tags: ["é", "b", "Z", "É", "b", "a-1", "a"])
        #expect(tagged.tags == ["Z", "a", "a-1", "b", "É", "é"])
        #expect(try await store.installation(appID: "app1", id: tagged.id)?.tags == tagged.tags)
        var noTags = InstallationDraft(installationID: "i-1")
        noTags.badge = 2
        let updated = try await store.upsertInstallation(appID: "app1", draft: noTags, match: .installationIDOrToken, newID: "unused", now: t0).0
        #expect(updated.badge == 2 && updated.tags == tagged.tags)
        let untagged = try await register(store, iid: "i-2", token: "bb")
        #expect(untagged.tags.isEmpty)
    }

    /// A new device is answered with its row as stored, whatever its draft holds. (SQLite builds that row, its
    /// parameters and its sorted tags before the write reaches the writer: docs/performance.md, "Round 21".)
    /// A draft for an app that is gone stores nothing.
    @Test(arguments: StoreKind.available) func aNewDeviceIsAnsweredWithItsStoredRow(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        var full = InstallationDraft(installationID: "i-1", deviceToken: "aa", environment: "sandbox")
        full.topic = "com.example.app1.voip"
        full.tags = ["news", "b", "a", "b"]
        full.alias = "al"
        full.userID = "u-1"
        full.locale = "fr-FR"
        full.timeZone = "Europe/Paris"
        full.badge = 7
        full.appVersion = "2.0"
        full.osVersion = "18.2"
        full.deviceModel = "iPhone17,1"
        full.properties = #"{"plan":"pro"}"#
        full.createdAt = t0.addingTimeInterval(-3_600)
        var tokenOnly = InstallationDraft(deviceToken: "bb")
        tokenOnly.tags = []
        let idOnly = InstallationDraft(installationID: "i-3")
        for (i, draft) in [full, tokenOnly, idOnly].enumerated() {
            let (answer, created) = try await store.upsertInstallation(appID: "app1", draft: draft, match: .installationIDOrToken,
                                                                       newID: "n-\(i)", now: t0)
            #expect(created)
            #expect(try await store.installation(appID: "app1", id: "n-\(i)") == answer)
        }
        let stored = try #require(try await store.installation(appID: "app1", id: "n-0"))
        #expect(stored.tags == ["a", "b", "news"] && stored.createdAt == t0.addingTimeInterval(-3_600) && stored.badge == 7)
        #expect(try await store.installation(appID: "app1", id: "n-2")?.installationID == "i-3")

        await #expect(throws: (any Error).self) {
            try await store.upsertInstallation(appID: "gone", draft: InstallationDraft(deviceToken: "cc"), match: .installationIDOrToken,
                                               newID: "n-9", now: t0)
        }
        #expect(try await store.installation(appID: "gone", id: "n-9") == nil)
        #expect(try await store.installationCount(appID: "app1") == 3)
    }

    @Test(arguments: StoreKind.available) func aTokenMovingToAnotherInstallationDeactivatesTheStaleRow(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        let a = try await register(store, iid: "i-1", token: "aa")
        _ = try await register(store, iid: "i-2", token: "bb")
        _ = try await register(store, iid: "i-2", token: "aa")
        let stale = try #require(try await store.installation(appID: "app1", id: a.id))
        #expect(stale.active == false)
        #expect(stale.deviceToken == nil)
    }

    @Test(arguments: StoreKind.available) func fanOutAppliesBadgeIncrementPerInstallationAndAdvancesCursor(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        for i in 0..<5 { _ = try await register(store, iid: "i-\(i)", token: "t\(i)", tags: i % 2 == 0 ? ["even"] : ["odd"]) }
        let push = PushRecord(id: "p1", appID: "app1", idempotencyKey: nil, request: "{}", status: .queued, createdAt: t0, sendAt: nil, expiresAt: nil)
        _ = try await store.insertPush(push, idempotentSince: t0)
        let selector = AudienceSelector(source: .all, tagsAny: ["even"])
        let plan: @Sendable ([AudienceMember]) -> [PlannedDelivery] = { members in
            members.map { PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment, variant: "", notBefore: t0) }
        }
        var progress = try await store.fanOut(pushID: "p1", selector: selector, badge: .add(2), limit: 2, claim: 0, now: t0, plan: plan)
        #expect(progress.planned == 2 && !progress.done)
        progress = try await store.fanOut(pushID: "p1", selector: selector, badge: .add(2), limit: 2, claim: 0, now: t0, plan: plan)
        #expect(progress.planned == 1 && progress.done)
        let claimed = try await store.claimDeliveries(pushID: "p1", limit: 10, now: t0)
        #expect(claimed.count == 3)
        #expect(claimed.allSatisfy { $0.badge == 2 })
        #expect(Set(claimed.map(\.deviceToken)) == ["t0", "t2", "t4"])
        #expect(try await store.claimDeliveries(pushID: "p1", limit: 10, now: t0).isEmpty)
    }

    /// A push to tags reads the rows of one tag it requires and checks the other conditions per member. Each
    /// tag condition must hold whether or not it names the tag being walked.
    @Test(arguments: StoreKind.available) func tagAudiencesMeetEveryTagConditionAroundTheTagTheyWalk(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        var ids: [String: String] = [:]
        for (iid, tags) in [("0", ["a"]), ("1", ["a", "b"]), ("2", ["b"]), ("3", ["a", "c"]), ("4", [])] {
            ids[try await register(store, iid: iid, token: "t\(iid)", tags: tags).id] = iid
        }
        func audience(any: [String]? = nil, all: [String]? = nil, none: [String]? = nil) async throws -> [String] {
            let selector = AudienceSelector(source: .all, tagsAny: any, tagsAll: all, tagsNone: none)
            return try await store.audience(appID: "app1", selector: selector, after: 0, limit: 10).compactMap { ids[$0.id] }
        }
        #expect(try await audience(any: ["a"]) == ["0", "1", "3"])
        #expect(try await audience(all: ["a"]) == ["0", "1", "3"])
        #expect(try await audience(any: ["a"], all: ["a"]) == ["0", "1", "3"])
        #expect(try await audience(all: ["a", "b"]) == ["1"])
        #expect(try await audience(any: ["b"], all: ["a"]) == ["1"])
        #expect(try await audience(any: ["a"], none: ["c"]) == ["0", "1"])
        #expect(try await audience(any: ["a", "b"]) == ["0", "1", "2", "3"])
        #expect(try await audience(any: ["x"]).isEmpty)
    }

    /// A push stored only if its audience reaches someone (JPush's 1011 without a read before the insert):
    /// refused with nothing stored when it reaches no one (a tag nobody has, a deleted device), stored
    /// when it does; a retry under an earlier push's idempotency key gets that push back either way.
    @Test(arguments: StoreKind.available) func aPushThatMustReachSomeoneIsStoredOnlyIfItDoes(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        let device = try await register(store, iid: "i-1", token: "t1", tags: ["on"])
        func push(_ id: String, key: String? = nil) -> PushRecord {
            PushRecord(id: id, appID: "app1", idempotencyKey: key, request: "{}", status: .queued, createdAt: t0, sendAt: nil, expiresAt: nil)
        }
        await #expect(throws: AudienceReachesNoOne.self) {
            _ = try await store.insertPush(push("nobody"), idempotentSince: t0, reaching: AudienceSelector(source: .all, tagsAny: ["off"]))
        }
        #expect(try await store.push(id: "nobody") == nil)
        let reached = try await store.insertPush(push("one", key: "k"), idempotentSince: t0, reaching: AudienceSelector(source: .installationIDs([device.id])))
        #expect(reached.created && reached.0.id == "one")
        #expect(try await store.deleteInstallation(appID: "app1", id: device.id))
        await #expect(throws: AudienceReachesNoOne.self) {
            _ = try await store.insertPush(push("gone"), idempotentSince: t0, reaching: AudienceSelector(source: .installationIDs([device.id])))
        }
        let replay = try await store.insertPush(push("again", key: "k"), idempotentSince: t0, reaching: AudienceSelector(source: .all, tagsAny: ["off"]))
        #expect(!replay.created && replay.0.id == "one")
    }

    @Test(arguments: StoreKind.available) func fanOutHandsBackDueRowsInFlightUpToTheClaimAndQueuesTheRest(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        for i in 0..<5 { _ = try await register(store, iid: "i-\(i)", token: "t\(i)") }
        _ = try await store.insertPush(PushRecord(id: "p1", appID: "app1", idempotencyKey: nil, request: "{}", status: .queued, createdAt: t0, sendAt: nil, expiresAt: nil), idempotentSince: t0)
        let later = t0.addingTimeInterval(3600)
        let progress = try await store.fanOut(pushID: "p1", selector: AudienceSelector(source: .all), badge: .add(1), limit: 10, claim: 3, now: t0) { members in
            // t1 is due only later (its local time), so it must not be handed back now.
            members.map { PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment,
                                          variant: "", notBefore: $0.deviceToken == "t1" ? later : t0) }
        }
        #expect(progress.planned == 5 && progress.done)
        #expect(progress.claimed.map(\.deviceToken) == ["t0", "t2", "t3"])
        #expect(progress.claimed.allSatisfy { $0.badge == 1 && $0.attempts == 0 })
        // In flight: a claim does not return them again; what is left is queued by due time.
        #expect(try await store.claimDeliveries(pushID: "p1", limit: 10, now: t0).map(\.deviceToken) == ["t4"])
        #expect(try await store.claimDeliveries(pushID: "p1", limit: 10, now: later).map(\.deviceToken) == ["t1"])
        // Their ids are the rows' own: outcomes recorded against them land.
        let recorded = try await store.recordOutcomes(pushID: "p1", outcomes: progress.claimed.map {
            DeliveryOutcome(deliveryID: $0.id, seq: $0.seq, deviceToken: $0.deviceToken, kind: .sent(status: 200))
        }, now: t0)
        #expect(recorded.sent == 3)
        #expect(try await store.deliveries(pushID: "p1", state: .sent, afterID: 0, limit: 10).count == 3)
    }

    @Test(arguments: StoreKind.available) func retirementIsSkippedWhenTheTokenWasRegisteredAfterThe410Timestamp(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        let old = try await register(store, iid: "i-1", token: "aa", now: t0)
        let fresh = try await register(store, iid: "i-2", token: "bb", now: t0.addingTimeInterval(100))
        _ = try await store.insertPush(PushRecord(id: "p1", appID: "app1", idempotencyKey: nil, request: "{}", status: .queued, createdAt: t0, sendAt: nil, expiresAt: nil), idempotentSince: t0)
        _ = try await store.fanOut(pushID: "p1", selector: AudienceSelector(source: .all), badge: nil, limit: 10, claim: 0, now: t0) { members in
            members.map { PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment, variant: "", notBefore: t0) }
        }
        let claimed = try await store.claimDeliveries(pushID: "p1", limit: 10, now: t0)
        let stamp = t0.addingTimeInterval(50)
        let result = try await store.recordOutcomes(pushID: "p1", outcomes: claimed.map {
            DeliveryOutcome(deliveryID: $0.id, seq: $0.seq, deviceToken: $0.deviceToken, kind: .failed(reason: "Unregistered", status: 410, retire: true, timestamp: stamp))
        }, now: t0.addingTimeInterval(200))
        // A late second answer for the same deliveries changes nothing.
        let late = try await store.recordOutcomes(pushID: "p1", outcomes: claimed.map {
            DeliveryOutcome(deliveryID: $0.id, seq: $0.seq, deviceToken: $0.deviceToken, kind: .sent(status: 200))
        }, now: t0.addingTimeInterval(300))
        #expect(late.sent == 0)
        #expect(result.retired == 1)
        #expect(try await store.installation(appID: "app1", id: old.id)?.active == false)
        #expect(try await store.installation(appID: "app1", id: fresh.id)?.active == true)
        #expect(try await store.failureReasons(pushID: "p1") == ["Unregistered": 2])
    }

    @Test(arguments: StoreKind.available) func idempotencyKeyReturnsTheEarlierPushWithinTheWindow(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        let p1 = PushRecord(id: "p1", appID: "app1", idempotencyKey: "k", request: "{}", status: .queued, createdAt: t0, sendAt: nil, expiresAt: nil)
        #expect(try await store.insertPush(p1, idempotentSince: t0.addingTimeInterval(-10)).created)
        let p2 = PushRecord(id: "p2", appID: "app1", idempotencyKey: "k", request: "{}", status: .queued, createdAt: t0, sendAt: nil, expiresAt: nil)
        let (same, created) = try await store.insertPush(p2, idempotentSince: t0.addingTimeInterval(-10))
        #expect(!created && same.id == "p1")
        let (later, createdLater) = try await store.insertPush(p2, idempotentSince: t0.addingTimeInterval(1))
        #expect(createdLater && later.id == "p2")
    }

    @Test(arguments: StoreKind.available) func valuesWithQuotesTravelSafelyThroughJSONParameters(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        var d = InstallationDraft(installationID: "i-1", deviceToken: "aa", environment: "production")
        d.alias = .some("o'brien \"x\" \\ ]")
        _ = try await store.upsertInstallation(appID: "app1", draft: d, match: .installationIDOrToken, newID: "s1", now: t0)
        let members = try await store.audience(appID: "app1", selector: AudienceSelector(source: .aliases(["o'brien \"x\" \\ ]"])), after: 0, limit: 10)
        #expect(members.map(\.id) == ["s1"])
    }

    @Test(arguments: StoreKind.available) func installationIDsInUseAreFoundInEveryApp(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        try await makeApp(store, id: "app2")
        #expect(try await store.installationIDsInUse([]).isEmpty)
        _ = try await store.importInstallations(appID: "app1", drafts: [InstallationDraft(installationID: "i-1", deviceToken: "aa")],
                                                newIDs: ["5f1a2b3c4d5e6f7a8b9c0d1e"], now: t0)
        _ = try await store.upsertInstallation(appID: "app2", draft: InstallationDraft(installationID: "i-2"), match: .installationIDOrToken,
                                               newID: "o'brien", now: t0)
        #expect(try await store.installationIDsInUse(["5f1a2b3c4d5e6f7a8b9c0d1e", "o'brien", "free", "i-1"]) == ["5f1a2b3c4d5e6f7a8b9c0d1e", "o'brien"])
    }

    /// An imported draft's creation time (from the system it was exported from) is kept when it creates the
    /// row, by both import paths (PostgreSQL inserts new rows in bulk, matched ones one by one), and left
    /// alone when it updates one.
    @Test(arguments: StoreKind.available) func importKeepsTheExportedCreationTimeOfNewRows(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        let then = Date(timeIntervalSince1970: 1_700_000_000)
        var fresh = InstallationDraft(installationID: "i-1", deviceToken: "aa")
        fresh.createdAt = then
        var twice = InstallationDraft(installationID: "i-2")
        twice.createdAt = then
        var again = twice
        again.createdAt = then.addingTimeInterval(60)
        _ = try await store.importInstallations(appID: "app1", drafts: [fresh, twice, again], newIDs: ["n1", "n2", "n3"], now: t0)
        #expect(try await store.installation(appID: "app1", id: "n1")?.createdAt == then)
        #expect(try await store.installation(appID: "app1", id: "n2")?.createdAt == then)
        var plain = InstallationDraft(installationID: "i-3")
        plain.createdAt = nil
        _ = try await store.importInstallations(appID: "app1", drafts: [plain], newIDs: ["n4"], now: t0)
        #expect(try await store.installation(appID: "app1", id: "n4")?.createdAt == t0)
    }

    @Test(arguments: StoreKind.available) func compatIdentityIsFoundByPublicIDReplacedAndRefusedToASecondApp(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        try await makeApp(store, id: "app2")
        let first = CompatIdentityRecord(appID: "app1", provider: "leancloud", publicID: "lc-1", sealed: [1, 2, 3], hint: "k1…",
                                         createdAt: t0, updatedAt: t0)
        try await store.saveCompatIdentity(first)
        #expect(try await store.compatIdentity(provider: "leancloud", publicID: "lc-1") == first)
        #expect(try await store.compatIdentity(provider: "jpush", publicID: "lc-1") == nil)

        // Replacing keeps one identity per app and provider; the old public id stops resolving.
        var replaced = first
        replaced.publicID = "lc-2"; replaced.sealed = [9]; replaced.updatedAt = t0.addingTimeInterval(5)
        try await store.saveCompatIdentity(replaced)
        #expect(try await store.compatIdentity(provider: "leancloud", publicID: "lc-1") == nil)
        #expect(try await store.compatIdentity(appID: "app1", provider: "leancloud") == replaced)

        // Another app cannot take the same public id, and the refusal changes nothing.
        let thief = CompatIdentityRecord(appID: "app2", provider: "leancloud", publicID: "lc-2", sealed: [7], hint: "x",
                                         createdAt: t0, updatedAt: t0)
        await #expect(throws: StoreError.self) { try await store.saveCompatIdentity(thief) }
        #expect(try await store.compatIdentity(provider: "leancloud", publicID: "lc-2")?.appID == "app1")
        #expect(try await store.compatIdentity(appID: "app2", provider: "leancloud") == nil)

        #expect(try await store.deleteCompatIdentity(appID: "app1", provider: "leancloud"))
        #expect(try await !store.deleteCompatIdentity(appID: "app1", provider: "leancloud"))
        #expect(try await store.compatIdentity(provider: "leancloud", publicID: "lc-2") == nil)

        // Deleting the app deletes its identities.
        try await store.saveCompatIdentity(thief)
        #expect(try await store.deleteApp(id: "app2"))
        #expect(try await store.compatIdentity(provider: "leancloud", publicID: "lc-2") == nil)
    }

    @Test(arguments: StoreKind.available) func consoleSessionIsFoundTouchedForwardOnlyPrunedAndDeleted(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        let session = ConsoleSessionRecord(idHash: [1, 2, 3], keyHash: [9, 9], createdAt: t0, lastSeenAt: t0)
        try await store.insertConsoleSession(session, pruneBefore: t0.addingTimeInterval(-60))
        #expect(try await store.consoleSession(idHash: [1, 2, 3]) == session)
        #expect(try await store.consoleSession(idHash: [1, 2]) == nil)
        await #expect(throws: (any Error).self) { try await store.insertConsoleSession(session, pruneBefore: t0.addingTimeInterval(-60)) }

        // Two nodes touching at once: the later time stays, whatever the order.
        try await store.touchConsoleSession(idHash: [1, 2, 3], at: t0.addingTimeInterval(30))
        try await store.touchConsoleSession(idHash: [1, 2, 3], at: t0.addingTimeInterval(10))
        #expect(try await store.consoleSession(idHash: [1, 2, 3])?.lastSeenAt == t0.addingTimeInterval(30))
        try await store.touchConsoleSession(idHash: [7], at: t0)   // none: nothing happens
        #expect(try await store.consoleSession(idHash: [7]) == nil)

        // A new session prunes those idle since before the cut, and only those.
        let other = ConsoleSessionRecord(idHash: [4], keyHash: [9], createdAt: t0.addingTimeInterval(100), lastSeenAt: t0.addingTimeInterval(100))
        try await store.insertConsoleSession(other, pruneBefore: t0.addingTimeInterval(31))
        #expect(try await store.consoleSession(idHash: [1, 2, 3]) == nil)
        #expect(try await store.consoleSession(idHash: [4]) == other)

        #expect(try await store.deleteConsoleSession(idHash: [4]))
        #expect(try await !store.deleteConsoleSession(idHash: [4]))
        #expect(try await store.consoleSession(idHash: [4]) == nil)
    }

    @Test(arguments: StoreKind.available) func pushStatisticsGroupPushesByCreationIntervalWithFailureReasons(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        try await makeApp(store, id: "app2")
        for i in 0..<3 { _ = try await register(store, iid: "i-\(i)", token: "t\(i)") }
        let hour: TimeInterval = 3600
        let base = Date(timeIntervalSince1970: (t0.timeIntervalSince1970 / hour).rounded(.down) * hour)
        // p1 in the first hour (two sent, one failed), p2 in the same hour, p3 two hours later; app2's push counts nowhere here.
        for (id, app, at) in [("p1", "app1", base.addingTimeInterval(10)), ("p2", "app1", base.addingTimeInterval(3000)),
                              ("p3", "app1", base.addingTimeInterval(2 * hour + 5)), ("q1", "app2", base.addingTimeInterval(20))] {
            _ = try await store.insertPush(PushRecord(id: id, appID: app, idempotencyKey: nil, request: "{}", status: .queued, createdAt: at, sendAt: nil, expiresAt: nil),
                                           idempotentSince: at)
        }
        _ = try await store.fanOut(pushID: "p1", selector: AudienceSelector(source: .all), badge: nil, limit: 10, claim: 0, now: base) { members in
            members.map { PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment, variant: "", notBefore: base) }
        }
        let claimed = try await store.claimDeliveries(pushID: "p1", limit: 10, now: base)
        _ = try await store.recordOutcomes(pushID: "p1", outcomes: claimed.map {
            DeliveryOutcome(deliveryID: $0.id, seq: $0.seq, deviceToken: $0.deviceToken,
                            kind: $0.deviceToken == "t2" ? .failed(reason: "Unregistered", status: 410, retire: true, timestamp: nil) : .sent(status: 200))
        }, now: base)

        let buckets = try await store.pushStatistics(appID: "app1", since: base, interval: hour)
        #expect(buckets.map(\.start) == [base, base.addingTimeInterval(2 * hour)])
        #expect(buckets.first?.pushes == 2 && buckets.first?.targeted == 3 && buckets.first?.sent == 2 && buckets.first?.failed == 1)
        #expect(buckets.first?.failedByReason == ["Unregistered": 1])
        #expect(buckets.last?.pushes == 1 && buckets.last?.failedByReason == [:])
        #expect(try await store.pushStatistics(appID: "app1", since: base.addingTimeInterval(hour), interval: hour).map(\.start) == [base.addingTimeInterval(2 * hour)])

        // The 410 retired t2's installation.
        #expect(try await store.installationCounts(appID: "app1") == InstallationCounts(active: 2, retired: 1))
        #expect(try await store.installationCounts(appID: "app2") == InstallationCounts(active: 0, retired: 0))
    }

    @Test(arguments: StoreKind.available) func installationDeliveriesAreNewestFirstPagedAndOnlyTheApps(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        try await makeApp(store, id: "app2")
        let a = try await register(store, iid: "i-a", token: "aa")
        _ = try await register(store, iid: "i-b", token: "bb")
        for (n, id) in ["p1", "p2", "p3"].enumerated() {
            let at = t0.addingTimeInterval(Double(n))
            _ = try await store.insertPush(PushRecord(id: id, appID: "app1", idempotencyKey: nil, request: #"{"n":\#(n)}"#, status: .queued,
                                                      createdAt: at, sendAt: nil, expiresAt: nil), idempotentSince: at)
            _ = try await store.fanOut(pushID: id, selector: AudienceSelector(source: .all), badge: nil, limit: 10, claim: 0, now: at) { members in
                members.map { PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment, variant: "", notBefore: at) }
            }
        }
        // p2: aa failed, bb sent.
        let claimed = try await store.claimDeliveries(pushID: "p2", limit: 10, now: t0.addingTimeInterval(5))
        _ = try await store.recordOutcomes(pushID: "p2", outcomes: claimed.map {
            DeliveryOutcome(deliveryID: $0.id, seq: $0.seq, deviceToken: $0.deviceToken,
                            kind: $0.deviceToken == "aa" ? .failed(reason: "BadTopic", status: 400, retire: false, timestamp: nil) : .sent(status: 200))
        }, now: t0.addingTimeInterval(5))

        let first = try await store.installationDeliveries(appID: "app1", seq: a.seq, beforeID: nil, limit: 2)
        #expect(first.map(\.pushID) == ["p3", "p2"])
        #expect(first.map(\.state) == [.pending, .failed])
        #expect(first.last?.reason == "BadTopic" && first.last?.status == 400 && first.last?.attempts == 1)
        #expect(first.last?.updatedAt == t0.addingTimeInterval(5))
        #expect(first.last?.pushRequest == #"{"n":1}"#)
        #expect(first.last?.pushCreatedAt == t0.addingTimeInterval(1))
        #expect(try await first.last?.pushStatus == store.push(id: "p2")?.status)
        let second = try await store.installationDeliveries(appID: "app1", seq: a.seq, beforeID: first.last?.deliveryID, limit: 2)
        #expect(second.map(\.pushID) == ["p1"])
        // Another app never sees them.
        #expect(try await store.installationDeliveries(appID: "app2", seq: a.seq, beforeID: nil, limit: 10).isEmpty)
    }

    @Test(arguments: StoreKind.available) func credentialOutcomesKeepTheLatestTimesWithTheirReason(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        let at = { (s: Double) in t0.addingTimeInterval(s) }
        try await store.recordCredentialOutcomes([
            CredentialOutcomeRecord(appID: "app1", environment: "sandbox", acceptedAt: at(10)),
            CredentialOutcomeRecord(appID: "app1", environment: "production", rejectedAt: at(5), rejectedReason: "InvalidProviderToken"),
            CredentialOutcomeRecord(appID: "gone", environment: "sandbox", acceptedAt: at(10)),   // no such app: dropped
        ])
        // Flushed out of order by another node: older times change nothing; a later rejection brings its reason.
        try await store.recordCredentialOutcomes([
            CredentialOutcomeRecord(appID: "app1", environment: "sandbox", acceptedAt: at(1), rejectedAt: at(20), rejectedReason: "ExpiredProviderToken"),
            CredentialOutcomeRecord(appID: "app1", environment: "production", acceptedAt: at(30), rejectedAt: at(2), rejectedReason: "BadCertificate"),
        ])
        let expected = [
            CredentialOutcomeRecord(appID: "app1", environment: "production", acceptedAt: at(30), rejectedAt: at(5), rejectedReason: "InvalidProviderToken"),
            CredentialOutcomeRecord(appID: "app1", environment: "sandbox", acceptedAt: at(10), rejectedAt: at(20), rejectedReason: "ExpiredProviderToken"),
        ]
        #expect(try await store.credentialOutcomes(appID: "app1") == expected)
        try await store.recordCredentialOutcomes(expected)   // idempotent
        #expect(try await store.credentialOutcomes(appID: "app1") == expected)
        #expect(try await store.credentialOutcomes(appID: "gone").isEmpty)
        #expect(try await store.deleteApp(id: "app1"))
        #expect(try await store.credentialOutcomes(appID: "app1").isEmpty)
    }
}
