import Foundation
import Testing
@testable import HeraldStore

/// More of the contract, on every store: keys, credentials, imports, listings, a push's life and the
/// page-at-once delivery path.
@Suite struct StorageContractTests {
    static let planAll: @Sendable ([AudienceMember]) -> [PlannedDelivery] = { members in
        members.map { PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment, variant: "", notBefore: t0) }
    }

    @Test(arguments: StoreKind.available) func keysRotateAtomicallyAndCredentialsLiftAPause(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        let hash: [UInt8] = [0, 1, 2, 0xfe, 0xff]
        try await store.createApp(AppRecord(id: "app1", name: "A", topic: nil, defaultTimeZone: "UTC", rateLimit: 5, createdAt: t0, updatedAt: t0),
                                  keys: [APIKeyRecord(id: "k1", appID: "app1", scope: .master, hash: hash, hint: "mk_1", createdAt: t0)])
        #expect(try await store.key(hash: hash)?.id == "k1")
        #expect(try await store.key(hash: hash)?.hash == hash)
        let later = t0.addingTimeInterval(60)
        try await store.rotateKey(APIKeyRecord(id: "k2", appID: "app1", scope: .master, hash: [9], hint: "mk_2", createdAt: later),
                                  revokingScope: .master, at: later)
        let keys = try await store.keys(appID: "app1")
        #expect(keys.map(\.id) == ["k1", "k2"])
        #expect(keys.first?.revokedAt == later && keys.last?.revokedAt == nil)
        try await store.insertKey(APIKeyRecord(id: "admin", appID: nil, scope: .admin, hash: [7], hint: "ak", createdAt: t0))
        #expect(try await store.keys(appID: nil).map(\.id) == ["admin"])

        try await store.setAppPaused(id: "app1", reason: "BadCertificate", at: later)
        #expect(try await store.app(id: "app1")?.pausedReason == "BadCertificate")
        let credential = CredentialRecord(appID: "app1", environment: "sandbox", kind: "token", sealed: [1, 0, 2], keyID: "K", teamID: "T",
                                          topic: nil, createdAt: t0, updatedAt: t0)
        try await store.saveCredential(credential)
        try await store.saveCredential(CredentialRecord(appID: "app1", environment: "production", kind: "certificate", sealed: [3], keyID: nil,
                                                        teamID: nil, topic: "com.x", createdAt: t0, updatedAt: t0))
        #expect(try await store.app(id: "app1")?.pausedReason == nil, "a new credential resumes delivery")
        #expect(try await store.credentials(appID: "app1").map(\.environment) == ["production", "sandbox"])
        #expect(try await store.credentials(appID: "app1").last == credential)
        #expect(try await store.deleteCredential(appID: "app1", environment: "sandbox"))
        #expect(try await !store.deleteCredential(appID: "app1", environment: "sandbox"))

        var app = try #require(try await store.app(id: "app1"))
        app.name = "Renamed"; app.rateLimit = nil
        try await store.updateApp(app)
        #expect(try await store.apps() == [app])
        #expect(try await store.deleteApp(id: "app1"))
        #expect(try await store.app(id: "app1") == nil)
        #expect(try await store.key(hash: hash) == nil, "keys go with their app")
    }

    @Test(arguments: StoreKind.available) func importCreatesUpdatesAndKeepsInactiveState(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        _ = try await register(store, iid: "old", token: "t-old", tags: ["x"])
        var drafts: [InstallationDraft] = []
        for i in 0..<5 {
            var d = InstallationDraft(installationID: "i-\(i)", deviceToken: "t-\(i)", environment: "sandbox")
            d.tags = ["imported", "n\(i % 2)"]
            d.alias = .some("alias-\(i)")
            drafts.append(d)
        }
        var gone = InstallationDraft(installationID: "gone", deviceToken: "t-gone", environment: "production")
        gone.inactive = .init(reason: "Unregistered", at: t0.addingTimeInterval(-5))
        drafts.append(gone)
        drafts.append(InstallationDraft(installationID: "old", deviceToken: "t-old2"))      // updates the stored one
        drafts.append(InstallationDraft(installationID: "i-0", deviceToken: "t-0b"))       // and one made earlier in this import
        let result = try await store.importInstallations(appID: "app1", drafts: drafts, newIDs: drafts.map { _ in UUID().uuidString }, now: t0)
        #expect(result.created == 6 && result.updated == 2)
        #expect(try await store.installationCount(appID: "app1") == 7)
        let first = try #require(try await store.installation(appID: "app1", id: "i-0"))
        #expect(first.deviceToken == "t-0b" && first.tags == ["imported", "n0"] && first.alias == "alias-0" && first.environment == "sandbox")
        let inactive = try #require(try await store.installation(appID: "app1", id: "gone"))
        #expect(!inactive.active && inactive.inactiveReason == "Unregistered" && inactive.inactiveAt == t0.addingTimeInterval(-5))
        #expect(try await store.installation(appID: "app1", id: "old")?.deviceToken == "t-old2")
        #expect(try await store.tags(appID: "app1", after: nil, limit: 10).map { "\($0.tag)=\($0.count)" } == ["imported=5", "n0=3", "n1=2", "x=1"])
        #expect(try await store.tags(appID: "app1", after: "imported", limit: 2).map(\.tag) == ["n0", "n1"])
        #expect(try await store.aliases(appID: "app1", after: "alias-2", limit: 10).map(\.alias) == ["alias-3", "alias-4"])
    }

    @Test(arguments: StoreKind.available) func listingsFilterAndPageBySeq(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        for i in 0..<6 { _ = try await register(store, iid: "i-\(i)", token: "t\(i)", tags: i < 3 ? ["a"] : ["b"], now: t0.addingTimeInterval(Double(i))) }
        let page1 = try await store.installations(appID: "app1", query: InstallationQuery(limit: 4))
        #expect(page1.map(\.installationID) == ["i-0", "i-1", "i-2", "i-3"])
        let page2 = try await store.installations(appID: "app1", query: InstallationQuery(afterSeq: page1.last!.seq, limit: 4))
        #expect(page2.map(\.installationID) == ["i-4", "i-5"])
        #expect(try await store.installations(appID: "app1", query: InstallationQuery(tag: "b")).map(\.installationID) == ["i-3", "i-4", "i-5"])
        #expect(try await store.installations(appID: "app1", query: InstallationQuery(deviceToken: "t2")).map(\.installationID) == ["i-2"])
        #expect(try await store.installations(appID: "app1", query: InstallationQuery(updatedSince: t0.addingTimeInterval(4))).count == 2)
        let tagged = try await store.updateTags(appID: "app1", id: "i-0", add: ["c", "a"], remove: ["a"], now: t0)
        #expect(tagged.tags == ["a", "c"], "removals first, then additions")
        #expect(try await store.removeTagEverywhere(appID: "app1", tag: "b") == 3)
        #expect(try await store.installations(appID: "app1", query: InstallationQuery(active: false)).isEmpty)
        #expect(try await store.deleteInstallation(appID: "app1", id: "i-5"))
        #expect(try await !store.deleteInstallation(appID: "app1", id: "i-5"))
        #expect(try await store.unresolvedTargets(appID: "app1", source: .tokens(["nope", "t1", "t5", "x"]), limit: 10) == ["nope", "t5", "x"])
        #expect(try await store.unresolvedTargets(appID: "app1", source: .installationIDs(["i-1", "zz"]), limit: 10) == ["zz"])
        await #expect(throws: StoreError.self) {
            var d = InstallationDraft(installationID: "i-2")
            d.badge = 1
            _ = try await store.upsertInstallation(appID: "app1", draft: d, match: .existing("missing"), newID: "n", now: t0)
        }
    }

    @Test(arguments: StoreKind.available) func aPushIsScheduledPromotedCancelledFailedFinishedAndPurged(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        for i in 0..<3 { _ = try await register(store, iid: "i-\(i)", token: "t\(i)") }
        let due = t0.addingTimeInterval(10)
        _ = try await store.insertPush(PushRecord(id: "s", appID: "app1", idempotencyKey: nil, request: "{}", status: .scheduled,
                                                  createdAt: t0, sendAt: due, expiresAt: nil), idempotentSince: t0)
        #expect(try await store.promoteScheduled(now: t0) == 0)
        #expect(try await store.pushes(appID: "app1", status: .scheduled, before: nil, limit: 10).map(\.id) == ["s"])
        #expect(try await store.promoteScheduled(now: due) == 1)
        #expect(try await store.promoteScheduled(now: due) == 0, "promoted once")
        #expect(try await store.activePushes().map(\.id) == ["s"])

        _ = try await store.fanOut(pushID: "s", selector: AudienceSelector(source: .all), badge: nil, limit: 10, claim: 1, now: t0, plan: Self.planAll)
        #expect(try await store.pendingDeliveryCount() == 3)
        let cancelled = try #require(try await store.cancelPush(appID: "app1", id: "s", now: due))
        #expect(cancelled.status == .cancelled && cancelled.counts.cancelled == 2)
        await #expect(throws: StoreError.conflict("push s is already cancelled")) { _ = try await store.cancelPush(appID: "app1", id: "s", now: due) }

        try await queuedPush(store, id: "f")
        try await store.failPush(id: "f", code: "no_credential", message: "none", now: due)
        let failed = try #require(try await store.push(id: "f"))
        #expect(failed.status == .failed && failed.errorCode == "no_credential" && failed.finishedAt == due)

        try await queuedPush(store, id: "d")
        let progress = try await store.fanOut(pushID: "d", selector: AudienceSelector(source: .all), badge: .set(7), limit: 10, claim: 10, now: t0, plan: Self.planAll)
        #expect(progress.claimed.count == 3 && progress.claimed.allSatisfy { $0.badge == 7 })
        #expect(try await !store.finishIfComplete(pushID: "d", now: due), "deliveries still in flight")
        _ = try await store.recordOutcomes(pushID: "d", outcomes: progress.claimed.map {
            DeliveryOutcome(deliveryID: $0.id, seq: $0.seq, deviceToken: $0.deviceToken, kind: .sent(status: 200))
        }, now: due)
        #expect(try await store.finishIfComplete(pushID: "d", now: due))
        let installation = try #require(try await store.installation(appID: "app1", id: "i-1"))
        #expect(installation.badge == 7)
        #expect(try await store.recordOpen(appID: "app1", pushID: "d", installationID: "i-1", now: due))
        #expect(try await !store.recordOpen(appID: "app1", pushID: "d", installationID: installation.id, now: due), "once per installation")
        #expect(try await store.push(appID: "app1", id: "d")?.counts.opened == 1)
        await #expect(throws: StoreError.notFound) { _ = try await store.recordOpen(appID: "app1", pushID: "nope", installationID: "i-1", now: due) }

        #expect(try await store.pushes(appID: "app1", status: nil, before: nil, limit: 10).count == 3)
        #expect(try await store.purgeFinishedPushes(before: due, limit: 10) == 0, "finished at `due`, not before")
        #expect(try await store.purgeFinishedPushes(before: due.addingTimeInterval(1), limit: 2) == 2)
        #expect(try await store.purgeFinishedPushes(before: due.addingTimeInterval(1), limit: 2) == 1)
        #expect(try await store.deliveries(pushID: "d", state: nil, afterID: 0, limit: 10).isEmpty, "deliveries go with their push")
    }

    /// A store with `count` installations ("i-0"...) and the queued push "p1", with its one page read and planned.
    static func pageRead(_ kind: StoreKind, installations count: Int) async throws
        -> (store: any HeraldStorage, members: [AudienceMember], planned: [PlannedDelivery]) {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        for i in 0..<count { _ = try await register(store, iid: "i-\(i)", token: "t\(i)") }
        try await queuedPush(store)
        let members = try await store.audience(appID: "app1", selector: AudienceSelector(source: .all), after: 0, limit: count)
        return (store, members, planAll(members))
    }

    @Test(arguments: StoreKind.available) func aPageIsWrittenOnceWithItsOutcomes(_ kind: StoreKind) async throws {
        let (store, members, planned) = try await Self.pageRead(kind, installations: 4)
        let retryAt = t0.addingTimeInterval(30)
        let rows = [
            PageDelivery(planned: planned[0], outcome: .sent(status: 200)),
            PageDelivery(planned: planned[1], outcome: .failed(reason: "BadDeviceToken", status: 400, retire: true, timestamp: nil)),
            PageDelivery(planned: planned[2], outcome: .retry(at: retryAt, reason: "TooManyRequests", status: 429)),
            PageDelivery(planned: planned[3], outcome: nil),
        ]
        #expect(try await store.recordPage(pushID: "p1", after: 0, cursor: members.last!.seq, done: true, badge: 3, rows: rows, now: t0))
        #expect(try await !store.recordPage(pushID: "p1", after: 0, cursor: members.last!.seq, done: true, badge: 3, rows: rows, now: t0), "written once")
        let push = try #require(try await store.push(id: "p1"))
        #expect(push.status == .sending && push.fanoutDone && push.counts.targeted == 4 && push.counts.sent == 1 && push.counts.failed == 1 && push.counts.retired == 1)
        #expect(try await store.failureReasons(pushID: "p1") == ["BadDeviceToken": 1])
        let records = try await store.deliveries(pushID: "p1", state: nil, afterID: 0, limit: 10)
        #expect(records.map(\.state) == [.sent, .failed, .pending, .pending])
        #expect(records.map(\.attempts) == [1, 1, 1, 0])
        #expect(records.allSatisfy { $0.badge == 3 })
        #expect(records[2].reason == "TooManyRequests" && records[2].status == 429)
        #expect(try await store.deliveries(pushID: "p1", state: .pending, afterID: records[2].id, limit: 10).map(\.id) == [records[3].id])
        #expect(try await store.nextDue(pushID: "p1") == t0)
        #expect(try await store.installation(appID: "app1", id: "i-1")?.active == false)
        #expect(try await store.installation(appID: "app1", id: "i-0")?.badge == 3)
        let claimed = try await store.claimDeliveries(pushID: "p1", limit: 10, now: t0)
        #expect(claimed.map(\.installationID) == [planned[3].installationID])
        #expect(try await store.releaseInFlight() == 1)
        #expect(try await store.claimDeliveries(pushID: "p1", limit: 10, now: retryAt).count == 2)
    }

    /// A push cancelled while its page was out: what the page sent stays sent, and the rest (not attempted,
    /// or left for a retry) is written cancelled and counted, not queued for a push that has ended. 70 rows:
    /// a full statement of rows and single rows after it.
    @Test(arguments: StoreKind.available) func aPageOfACancelledPushWritesWhatWasNotSentAsCancelled(_ kind: StoreKind) async throws {
        let (store, members, planned) = try await Self.pageRead(kind, installations: 70)
        #expect(try await store.cancelPush(appID: "app1", id: "p1", now: t0)?.status == .cancelled)
        let rows = planned.enumerated().map { i, p in
            PageDelivery(planned: p, outcome: i % 3 == 0 ? .sent(status: 200)
                         : i % 3 == 1 ? .retry(at: t0.addingTimeInterval(30), reason: "TooManyRequests", status: 429) : nil)
        }
        #expect(try await store.recordPage(pushID: "p1", after: 0, cursor: members.last!.seq, done: true, badge: nil, rows: rows, now: t0))
        let records = try await store.deliveries(pushID: "p1", state: nil, afterID: 0, limit: 100)
        #expect(records.map(\.state) == (0..<70).map { $0 % 3 == 0 ? .sent : .cancelled })
        #expect(records.map(\.installationID) == planned.map(\.installationID))
        let push = try #require(try await store.push(id: "p1"))
        #expect(push.counts.sent == 24 && push.counts.cancelled == 46 && push.counts.targeted == 70 && push.status == .cancelled)
        #expect(try await store.claimDeliveries(pushID: "p1", limit: 100, now: t0.addingTimeInterval(60)).isEmpty)
    }
}
