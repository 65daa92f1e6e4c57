import Foundation
import Synchronization
import Testing
@testable import HeraldStore
@testable import HeraldServer

/// Push API through the durable queue to the transport. The transport is the in-memory RecordingTransport,
/// standing in for the network only; everything else (SQLite, crypto, router) is real.
@Suite struct PushPipelineTests {
    @Test(arguments: ServerStore.available) func tagPushReachesTaggedActiveDevicesWithHeraldPushIdInThePayload(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        for i in 0..<6 { try await t.register(app, "i-\(i)", token: token(i), tags: i % 2 == 0 ? ["news"] : ["sport"]) }
        let r = await t.call("POST", "/v1/pushes", key: app.master,
                             json: ["target": ["tags": ["news"]], "content": ["alert": ["title": "Hi", "body": "There"], "sound": "default", "data": ["deeplink": "app://x"]]])
        #expect(r.status == 202)
        #expect(r.body["status"] == "queued")
        let id = try #require(r.body["id"]?.stringValue)
        #expect(t.transport.notifications.isEmpty)   // accepted, stored, not yet sent
        try await t.deliver()
        let sent = t.transport.notifications
        #expect(Set(sent.map(\.deviceToken)) == [token(0), token(2), token(4)])
        let p = payload(sent[0])
        #expect(p["herald"]?["pushId"]?.stringValue == id)
        #expect(p["aps"]?["alert"]?["title"] == "Hi" && p["aps"]?["sound"] == "default" && p["deeplink"] == "app://x")
        #expect(sent.allSatisfy { $0.pushType == "alert" && $0.priority == 10 && $0.topic == "com.example.demo" })
        let status = await t.status(app, id, include: true)
        #expect(status["status"] == "done")
        #expect(status["counts"]?["targeted"] == 3 && status["counts"]?["sent"] == 3 && status["counts"]?["pending"] == 0)
        let deliveries = status["deliveries"]?.arrayValue ?? []
        #expect(deliveries.count == 3 && deliveries.allSatisfy { $0["state"] == "sent" && $0["status"] == 200 })
        #expect(Set(deliveries.compactMap { $0["apnsId"]?.stringValue }) == Set(sent.map(\.apnsID.lowercasedString)))
    }

    @Test func apnsIDIsStablePerPushAndInstallation() async throws {
        let a = stableAPNsID(pushID: "p", installationID: "i").lowercasedString
        #expect(a == stableAPNsID(pushID: "p", installationID: "i").lowercasedString)
        #expect(a != stableAPNsID(pushID: "p", installationID: "j").lowercasedString)
        #expect(UUID(uuidString: a)?.uuidString.lowercased() == a, "a canonical lowercase UUID")
        #expect(Array(a)[14] == "5", "version 5 style")
        #expect(a.count == 36 && Array(a)[14] == "5")
        // The API shows the apns-ids of past deliveries, so the derivation must never change: these are
        // SHA-256("herald:apns-id:<push>:<installation>") as Python's hashlib computes it, version and variant set.
        #expect(a == "642a4bb1-7887-5e56-98ec-7f7160d409c9")
        #expect(stableAPNsID(pushID: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", installationID: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c").lowercasedString
                == "044ad04d-3d27-5484-b770-c6d48d993627")
    }

    @Test(arguments: ServerStore.available) func targetingByTagsAllNoneAliasAndPropertyFilters(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        try await t.register(app, "a", token: token(1), tags: ["news", "vip"], extra: ["locale": "fr-FR", "properties": ["plan": "gold"]])
        try await t.register(app, "b", token: token(2), tags: ["news"], extra: ["locale": "fr-CA", "properties": ["plan": "free"]])
        try await t.register(app, "c", token: token(3), tags: ["news", "muted"], extra: ["locale": "en-US", "alias": "carol"])
        func audience(_ target: JSON) async -> Int? {
            await t.call("POST", "/v1/pushes", key: app.master, json: ["target": target, "content": ["alert": "x"], "dryRun": true]).body["audience"]?.intValue
        }
        #expect(await audience(["tags": ["all": ["news", "vip"]]]) == 1)
        #expect(await audience(["tags": ["any": ["news"], "none": ["muted"]]]) == 2)
        #expect(await audience(["aliases": ["carol", "nobody"]]) == 1)
        // One unknown target never fails the push; it is named in the answer.
        let partial = await t.call("POST", "/v1/pushes", key: app.master, json: ["target": ["aliases": ["carol", "nobody"]], "content": ["alert": "x"]])
        #expect(partial.status == 202 && partial.body["unresolved"] == ["nobody"])
        #expect(await audience(["all": true, "filter": ["locale": "fr"]]) == 2)
        #expect(await audience(["all": true, "filter": ["properties": ["plan": ["in": ["gold", "silver"]]]]]) == 1)
        #expect(await audience(["tokens": [.string(token(2)), .string(token(9))]]) == 1)
        #expect(await audience(["all": true, "environment": "sandbox"]) == 0)
        // Dry runs store nothing (only the one real push above is listed).
        #expect(await t.call("GET", "/v1/pushes", key: app.master).body["pushes"]?.arrayValue?.count == 1)
    }

    @Test(arguments: ServerStore.available) func localizedVariantsAreEncodedOncePerVariant(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        try await t.register(app, "fr1", token: token(1), extra: ["locale": "fr-FR"])
        try await t.register(app, "fr2", token: token(2), extra: ["locale": "fr-CA"])
        try await t.register(app, "en", token: token(3), extra: ["locale": "en-US"])
        _ = try await t.push(app, ["target": ["all": true],
                                   "content": ["alert": ["title": "Hello", "body": "Shipped"], "localized": ["fr": ["body": "Expédié"]]]])
        try await t.deliver()
        let byToken = Dictionary(uniqueKeysWithValues: t.transport.notifications.map { ($0.deviceToken, $0) })
        #expect(payload(byToken[token(1)]!)["aps"]?["alert"] == ["title": "Hello", "body": "Expédié"])
        #expect(payload(byToken[token(3)]!)["aps"]?["alert"] == ["title": "Hello", "body": "Shipped"])
        // Same variant → the very same payload buffer, not a copy per device.
        let a = byToken[token(1)]!.payload, b = byToken[token(2)]!.payload
        #expect(a.withUnsafeBufferPointer { $0.baseAddress } == b.withUnsafeBufferPointer { $0.baseAddress })
    }

    /// Issue #13: a zh-Hans_CN device got the default text for a zh-Hans key, while filter.locale "zh-Hans"
    /// named it. Both follow BCP 47 lookup now (zh-Hans-CN → zh-Hans → zh), `_` or `-`, any case.
    @Test func localizedContentFollowsBCP47LookupLikeTheFilter() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        let locales = ["zh-Hans_CN", "zh_hant_TW", "ZH-HANS", "zh_CN", "pt-BR", "en-US"]
        for (n, locale) in locales.enumerated() {
            try await t.register(app, "d\(n)", token: token(n), extra: ["locale": .string(locale)])
        }
        _ = try await t.push(app, ["target": ["all": true],
                                   "content": ["alert": "default", "localized": ["zh-Hans": "简体", "zh": "中文", "pt_br": "Olá"]]])
        try await t.deliver()
        let byToken = Dictionary(uniqueKeysWithValues: t.transport.notifications.map { ($0.deviceToken, payload($0)["aps"]?["alert"]) })
        #expect(byToken[token(0)] == "简体", "zh-Hans_CN falls back to zh-Hans")
        #expect(byToken[token(1)] == "中文", "zh_hant_TW has no zh-Hant key: zh")
        #expect(byToken[token(2)] == "简体", "case does not matter")
        #expect(byToken[token(3)] == "中文", "zh_CN has no script: zh, not zh-Hans")
        #expect(byToken[token(4)] == "Olá", "pt_br and pt-BR are the same tag")
        #expect(byToken[token(5)] == "default")

        func audience(_ locale: JSON) async -> Int? {
            await t.call("POST", "/v1/pushes", key: app.master, json: [
                "target": ["all": true, "filter": ["locale": locale]], "content": ["alert": "x"], "dryRun": true]).body["audience"]?.intValue
        }
        #expect(await audience("zh-Hans") == 2, "the same devices the zh-Hans text reaches")
        #expect(await audience("zh_hans_cn") == 1)
        #expect(await audience("zh") == 4)
        #expect(await audience("zh-CN") == 1, "zh-CN names zh_CN, not zh-Hans_CN")
        #expect(await audience(["in": ["pt-br", "en"]]) == 2)

        let clash = await t.call("POST", "/v1/pushes", key: app.master, json: [
            "target": ["all": true], "content": ["alert": "x", "localized": ["pt-BR": "a", "pt_br": "b"]]])
        #expect(clash.status == 422 && clash.errorField?.hasPrefix("content.localized.") == true, "\(clash.text)")
    }

    @Test(arguments: ["Unregistered", "BadDeviceToken", "DeviceTokenNotForTopic", "ExpiredToken"])
    func deadTokenRetiresTheInstallationAndReRegistrationRevivesIt(reason: String) async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        try await t.register(app, "dead", token: token(1))
        try await t.register(app, "alive", token: token(2))
        let stamp = start   // APNs: the token stopped being valid at (not after) its registration
        t.transport.answer { n in
            n.deviceToken == token(1) ? DeliveryResult(id: n.id, status: reason == "Unregistered" ? 410 : 400, reason: reason, unregisteredAt: stamp)
                                      : DeliveryResult(id: n.id, status: 200)
        }
        let id = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        try await t.deliver()
        let status = await t.status(app, id)
        #expect(status["counts"]?["sent"] == 1 && status["counts"]?["failed"] == 1 && status["counts"]?["retired"] == 1)
        #expect(status["failures"] == .object([reason: 1]))
        let dead = await t.call("GET", "/v1/installations/dead", key: app.master).body
        #expect(dead["active"] == false && dead["inactiveReason"]?.stringValue == reason)
        // The next push skips it; registering again brings it back.
        t.transport.answer { DeliveryResult(id: $0.id, status: 200) }
        let second = try await t.push(app, ["target": ["all": true], "content": ["alert": "y"]])
        try await t.deliver()
        #expect(await t.status(app, second)["counts"]?["targeted"] == 1)
        try await t.register(app, "dead", token: token(1))
        #expect(await t.call("GET", "/v1/installations/dead", key: app.master).body["active"] == true)
    }

    @Test(arguments: ServerStore.available) func a410OlderThanTheLatestRegistrationDoesNotRetire(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        try await t.register(app, "i", token: token(1))
        // APNs says the token died an hour before the device registered it again.
        t.transport.answer { DeliveryResult(id: $0.id, status: 410, reason: "Unregistered", unregisteredAt: start.addingTimeInterval(-3600)) }
        let id = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        try await t.deliver()
        #expect(await t.status(app, id)["counts"]?["retired"] == 0)
        #expect(await t.call("GET", "/v1/installations/i", key: app.master).body["active"] == true)
    }

    @Test(arguments: ServerStore.available) func transientFailuresRetryWithBackoffUntilSent(_ store: ServerStore) async throws {
        let t = try await TestService(store: store) { $0.retryBase = 10; $0.retryCap = 60 }
        let app = try await t.createApp()
        try await t.register(app, "i", token: token(1))
        t.transport.answer { DeliveryResult(id: $0.id, status: 503, reason: "ServiceUnavailable") }
        let id = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        try await t.deliver()
        #expect(t.transport.notifications.count == 1)
        #expect(await t.status(app, id)["status"] == "sending")
        try await t.deliver()
        #expect(t.transport.notifications.count == 1)   // not due yet: backoff is at least 5 s
        t.transport.answer { DeliveryResult(id: $0.id, status: 200) }
        t.clock.advance(by: 11)
        try await t.deliver()
        let sent = t.transport.notifications
        #expect(sent.count == 2 && sent[0].apnsID == sent[1].apnsID)
        let status = await t.status(app, id, include: true)
        #expect(status["status"] == "done" && status["counts"]?["sent"] == 1)
        #expect(status["deliveries"]?.arrayValue?.first?["attempts"] == 2)
    }

    @Test func aPushCreatedNowIsDueNowThoughItsStoredTimeReadsBackAHairLater() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000.123456)
        let spec = try PushSpec.parse(["target": ["all": true], "content": ["alert": "x"]], now: now, checkTimes: false)
        // What SQLite's REAL seconds can give back for `now`.
        let createdAt = now.addingTimeInterval(2e-7)
        let push = PushRecord(id: "p", appID: "a", idempotencyKey: nil, request: "{}", status: .queued, createdAt: createdAt, sendAt: nil, expiresAt: nil)
        let plan = PushPlan(push: push, spec: spec, topic: "com.example", defaultTimeZone: .gmt)
        let member = AudienceMember(seq: 1, id: "i", deviceToken: token(1), environment: "sandbox", locale: nil, timeZone: nil, appVersion: nil, properties: "{}")
        #expect(plan.plan([member], now: now).map(\.notBefore) == [now])
    }

    /// A batch is split by environment (each has its own credential), in the environments' order and keeping
    /// each one's deliveries in their order; a batch of one environment stays whole.
    @Test func aBatchIsSentPerEnvironmentInOrder() {
        func claimed(_ id: Int64, _ environment: String) -> ClaimedDelivery {
            ClaimedDelivery(id: id, seq: id, installationID: "i\(id)", deviceToken: token(Int(id)), environment: environment,
                            variant: "default", badge: nil, attempts: 0)
        }
        let mixed = [claimed(1, "sandbox"), claimed(2, "production"), claimed(3, "sandbox"), claimed(4, "production")]
        let groups = DeliveryEngine.byEnvironment(mixed)
        #expect(groups.map(\.environment) == ["production", "sandbox"])
        #expect(groups.map { $0.deliveries.map(\.id) } == [[2, 4], [1, 3]])
        let one = DeliveryEngine.byEnvironment([claimed(5, "production"), claimed(6, "production")])
        #expect(one.map(\.environment) == ["production"] && one.first?.deliveries.map(\.id) == [5, 6])
        #expect(DeliveryEngine.byEnvironment([]).isEmpty)
    }

    /// A page larger than a batch per slot goes out in one round, each slot sending its batches one after
    /// the other: all of the page at once would put it all on the wire (what a crash can re-send), one batch
    /// per slot and round would leave slots idle while the round's slowest batch ends. An app paused by its
    /// first batch's answer sends none of the slot's later batches; they wait, pending, for a credential.
    @Test(arguments: ServerStore.available) func aLargePageGoesOutInOneRoundWithABatchPerSlotOnTheWire(_ store: ServerStore) async throws {
        let t = try await TestService(store: store) { $0.fanOutBatchSize = 8; $0.dispatchBatchSize = 2; $0.dispatchConcurrency = 2 }
        let app = try await t.createApp()
        for i in 0..<12 { try await t.register(app, "i-\(i)", token: token(i)) }
        let inFlight = Mutex((now: 0, most: 0))
        t.transport.onArrival { _ in
            inFlight.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            try? await Task.sleep(for: .milliseconds(20))
            inFlight.withLock { $0.now -= 1 }
        }
        let id = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        _ = try await t.service.engine.runOnce()
        #expect(t.transport.batches.count == 4 && t.transport.notifications.count == 8, "the whole page, in batches of 2, in one round")
        #expect(inFlight.withLock { $0.most } == 2, "a batch per slot at a time")
        try await t.deliver()
        #expect(Set(t.transport.notifications.map(\.deviceToken)).count == 12)
        #expect(await t.status(app, id)["counts"]?["sent"] == 12)

        let paused = try await t.createApp("paused")
        for i in 0..<8 { try await t.register(paused, "p-\(i)", token: token(100 + i)) }
        t.transport.answer { DeliveryResult(id: $0.id, status: 403, reason: "InvalidProviderToken") }
        let before = t.transport.notifications.count
        let refused = try await t.push(paused, ["target": ["all": true], "content": ["alert": "x"]])
        _ = try await t.service.engine.runOnce()
        #expect(t.transport.notifications.count - before == 4, "each slot's first batch only")
        _ = try await t.service.engine.runOnce()
        let status = await t.status(paused, refused)
        #expect(status["counts"]?["sent"] == 0 && status["status"] == "sending", "\(status)")
    }

    @Test(arguments: ServerStore.available) func twoCallersDrivingTheEngineAtOnceSendEachDeviceOnce(_ store: ServerStore) async throws {
        let t = try await TestService(store: store) { $0.fanOutBatchSize = 4; $0.dispatchBatchSize = 2; $0.dispatchConcurrency = 2 }
        let app = try await t.createApp()
        for i in 0..<40 { try await t.register(app, "i-\(i)", token: token(i)) }
        let id = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        async let a = t.service.engine.runUntilIdle()
        async let b = t.service.engine.runUntilIdle()
        _ = try await (a, b)
        let tokens = t.transport.notifications.map(\.deviceToken)
        #expect(tokens.count == 40 && Set(tokens).count == 40)
        #expect(await t.status(app, id)["counts"]?["sent"] == 40)
    }

    /// A push to 24 devices in pages of 4 that fill both dispatch slots; the first device answers 503 once
    /// and is retried after a second.
    private func fanOutWhoseFirstDeviceIsRetried() async throws -> (TestService, TestService.App, String) {
        let t = try await TestService { $0.fanOutBatchSize = 4; $0.dispatchBatchSize = 2; $0.dispatchConcurrency = 2; $0.retryBase = 1; $0.retryCap = 1 }
        let app = try await t.createApp()
        for i in 0..<24 { try await t.register(app, "i-\(i)", token: token(i)) }
        let failOnce = Mutex(true)
        t.transport.answer { n in
            let fail = n.deviceToken == token(0) && failOnce.withLock { f in defer { f = false }; return f }
            return DeliveryResult(id: n.id, status: fail ? 503 : 200, reason: fail ? "ServiceUnavailable" : nil)
        }
        let id = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        return (t, app, id)
    }

    @Test func aRetryDueDuringALongFanOutIsNotHeldBackByIt() async throws {
        // Each fan-out page fills both slots; a due retry must still get one of them before the fan-out ends.
        let (t, app, id) = try await fanOutWhoseFirstDeviceIsRetried()
        var rounds = 0
        while t.transport.notifications.filter({ $0.deviceToken == token(0) }).count < 2, rounds < 20 {
            _ = try await t.service.engine.runOnce()
            t.clock.advance(by: 2)
            rounds += 1
        }
        let reached = Set(t.transport.notifications.map(\.deviceToken))
        #expect(t.transport.notifications.filter { $0.deviceToken == token(0) }.count == 2)
        #expect(reached.count <= 16, "the retry waited for the fan-out: \(reached.count) of 24 devices were reached first")
        try await t.deliver()
        let status = await t.status(app, id)
        #expect(status["status"] == "done" && status["counts"]?["sent"] == 24)
    }

    @Test func pagesQueueNothingWhileARetryTakesASlot() async throws {
        // A page that leaves a slot to a waiting retry reads only what its other slot sends: otherwise its
        // remainder would be queued, and every later page would leave a slot (and queue rows) too.
        let (t, app, id) = try await fanOutWhoseFirstDeviceIsRetried()
        var queuedAfterRetry: [Int] = []
        for _ in 0..<30 {
            guard try await t.service.engine.runOnce() else { break }
            t.clock.advance(by: 2)
            if t.transport.notifications.filter({ $0.deviceToken == token(0) }).count == 2 {
                queuedAfterRetry.append(await t.status(app, id)["counts"]?["pending"]?.intValue ?? -1)
            }
        }
        #expect(!queuedAfterRetry.isEmpty && queuedAfterRetry.allSatisfy { $0 == 0 }, "rows queued behind the fan-out: \(queuedAfterRetry)")
        try await t.deliver()
        #expect(await t.status(app, id)["counts"]?["sent"] == 24)
    }

    @Test func aFanOutThatCannotSendNowStillQueuesAPageARound() async throws {
        // A spent rate limit leaves rows waiting and nothing to send: pages keep being read whole (and
        // queued) rather than one member a round.
        let t = try await TestService { $0.fanOutBatchSize = 4; $0.dispatchBatchSize = 2; $0.dispatchConcurrency = 2 }
        let app = try await t.createApp()
        for i in 0..<24 { try await t.register(app, "i-\(i)", token: token(i)) }
        let id = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"], "options": ["rateLimit": 1]])
        for _ in 0..<8 { _ = try await t.service.engine.runOnce() }   // the clock stands still: no new tokens
        #expect(t.transport.notifications.count == 1)
        let status = await t.status(app, id)
        #expect(status["counts"]?["targeted"] == 24 && status["fanOutComplete"] == true, "\(status.encoded)")
    }

    @Test(arguments: [false, true])
    func theNextPageIsReadWhileARoundSendsAndACancelStopsTheRest(incrementsBadges: Bool) async throws {
        let t = try await TestService { $0.fanOutBatchSize = 2; $0.dispatchBatchSize = 2; $0.dispatchConcurrency = 1 }
        let app = try await t.createApp()
        for i in 0..<8 { try await t.register(app, "i-\(i)", token: token(i)) }
        var content: [String: JSON] = ["alert": "x"]
        if incrementsBadges { content["badge"] = ["increment": 1] }
        let id = try await t.push(app, ["target": ["all": true], "content": .object(content)])
        _ = try await t.service.engine.runOnce()
        #expect(t.transport.notifications.count == 2)
        // The next page is ready for the next round. A badge increment must be stored before it is sent, so
        // both pages are already written (the next one in flight); otherwise a page is written once, with its
        // outcomes, while the next round's batches are out.
        let targeted = await t.status(app, id)["counts"]?["targeted"]?.intValue
        #expect(targeted == (incrementsBadges ? 4 : 0))
        #expect(await t.call("POST", "/v1/pushes/\(id)/cancel", key: app.master).status == 200)
        #expect(try await t.service.engine.runUntilIdle(maxRounds: 20) < 20)
        // A page in flight at the cancel goes out, as an in-flight batch does; nothing after it.
        let sent = incrementsBadges ? 4 : 2
        #expect(t.transport.notifications.count == sent)
        let status = await t.status(app, id, include: true)
        let counts = status["counts"]
        #expect(status["status"] == "cancelled")
        #expect(counts?["sent"]?.intValue == sent && counts?["targeted"]?.intValue == sent)
        #expect(status["deliveries"]?.arrayValue?.allSatisfy { $0["state"] == "sent" } == true)
    }

    @Test(arguments: ServerStore.available) func retriesStopAtTheExpiration(_ store: ServerStore) async throws {
        let t = try await TestService(store: store) { $0.retryBase = 10; $0.retryCap = 10 }
        let app = try await t.createApp()
        try await t.register(app, "i", token: token(1))
        t.transport.answer { DeliveryResult(id: $0.id, status: 500, reason: "InternalServerError") }
        let id = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"], "options": ["ttl": 30]])
        for _ in 0..<6 { try await t.deliver(); t.clock.advance(by: 10) }
        let status = await t.status(app, id)
        #expect(status["status"] == "done")
        #expect(status["counts"]?["failed"] == 1)
        #expect(t.transport.notifications.count <= 4)
    }

    @Test(arguments: ServerStore.available) func credentialFailurePausesTheAppUntilANewCredentialArrives(_ store: ServerStore) async throws {
        let lines = Mutex<[String]>([])
        let t = try await TestService(store: store, log: { level, message in lines.withLock { $0.append("\(level.rawValue) \(message)") } })
        let app = try await t.createApp()
        try await t.register(app, "i", token: token(1))
        t.transport.answer { DeliveryResult(id: $0.id, status: 403, reason: "InvalidProviderToken") }
        let id = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        try await t.deliver()
        var status = await t.status(app, id)
        #expect(status["status"] == "sending")
        #expect(status["paused"]?["reason"] == "InvalidProviderToken")
        #expect(status["counts"]?["failed"] == 0)
        #expect(lines.withLock { $0 }.contains { $0.hasPrefix("warning app \(app.id) paused") && $0.contains("InvalidProviderToken") })
        let ready = await t.call("GET", "/readyz")
        #expect(ready.body["pausedApps"]?.arrayValue?.first?["id"]?.stringValue == app.id)
        try await t.deliver()
        #expect(t.transport.notifications.count == 1)   // paused: nothing more is sent
        t.transport.answer { DeliveryResult(id: $0.id, status: 200) }
        #expect(await t.call("PUT", "/v1/apps/\(app.id)/credentials/production", key: app.master, json: p8Credential).status == 200)
        try await t.deliver()
        status = await t.status(app, id)
        #expect(status["status"] == "done" && status["counts"]?["sent"] == 1 && status["paused"] == .null)
    }

    @Test(arguments: ServerStore.available) func idempotencyKeyReturnsTheSamePushAndSendsNothingTwice(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        try await t.register(app, "i", token: token(1))
        let body: JSON = ["target": ["all": true], "content": ["alert": "x"], "idempotencyKey": "order-42"]
        let first = await t.call("POST", "/v1/pushes", key: app.master, json: body)
        try await t.deliver()
        let second = await t.call("POST", "/v1/pushes", key: app.master, json: body)
        let viaHeader = await t.call("POST", "/v1/pushes", key: app.master, json: ["target": ["all": true], "content": ["alert": "x"]],
                                     headers: ["Idempotency-Key": "order-42"])
        try await t.deliver()
        #expect(first.status == 202 && second.status == 200 && viaHeader.status == 200)
        #expect(second.body["id"] == first.body["id"] && viaHeader.body["id"] == first.body["id"])
        #expect(second.headers["idempotent-replay"] == "true")
        #expect(t.transport.notifications.count == 1)
        // The same key for a different push is a mistake, not a replay.
        let different = await t.call("POST", "/v1/pushes", key: app.master,
                                     json: ["target": ["all": true], "content": ["alert": "other"], "idempotencyKey": "order-42"])
        #expect(different.status == 409 && different.errorCode == "idempotency_conflict")
        // After the window the key is free again.
        t.clock.advance(by: 86_401)
        let later = await t.call("POST", "/v1/pushes", key: app.master, json: body)
        #expect(later.status == 202 && later.body["id"] != first.body["id"])
    }

    @Test(arguments: ServerStore.available) func scheduledPushWaitsForItsTimeAndCanBeCancelled(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        try await t.register(app, "i", token: token(1))
        let later = try await t.push(app, ["target": ["all": true], "content": ["alert": "later"], "options": ["sendAt": "2027-01-15T09:00:00Z"]])
        let cancelled = try await t.push(app, ["target": ["all": true], "content": ["alert": "never"], "options": ["sendAt": "2027-01-15T09:00:00Z"]])
        #expect(await t.status(app, later)["status"] == "scheduled")
        try await t.deliver()
        #expect(t.transport.notifications.isEmpty)
        let c = await t.call("POST", "/v1/pushes/\(cancelled)/cancel", key: app.master)
        #expect(c.status == 200 && c.body["status"] == "cancelled")
        t.clock.advance(by: 3600)
        try await t.deliver()
        #expect(t.transport.notifications.map { payload($0)["aps"]?["alert"] } == ["later"])
        #expect(await t.status(app, later)["status"] == "done")
        #expect(await t.status(app, cancelled)["counts"]?["sent"] == 0)
    }

    /// A dry run counts a filter's audience in the push service; the push itself is filtered again by the fan-out's
    /// planning, page by page. Both must select the same devices, whatever the other fields of each member.
    @Test(arguments: ServerStore.available) func aFilteredPushReachesOnlyTheDevicesItsFilterSelects(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        try await t.register(app, "a", token: token(1), extra: ["locale": "fr-FR", "timeZone": "Europe/Paris", "properties": ["plan": "gold"]])
        try await t.register(app, "b", token: token(2), extra: ["locale": "fr-CA", "properties": ["plan": "free"]])
        try await t.register(app, "c", token: token(3), extra: ["locale": "en-US", "appVersion": "2.0", "properties": ["plan": "gold"]])
        try await t.register(app, "d", token: token(4), extra: ["locale": "fr-BE", "properties": ["plan": "silver"]])
        let target: JSON = ["all": true, "filter": ["locale": "fr", "properties": ["plan": ["in": ["gold", "silver"]]]]]
        let dry = await t.call("POST", "/v1/pushes", key: app.master, json: ["target": target, "content": ["alert": "x"], "dryRun": true])
        #expect(dry.body["audience"]?.intValue == 2)
        _ = try await t.push(app, ["target": target, "content": ["alert": "x"]])
        try await t.deliver()
        #expect(Set(t.transport.notifications.map(\.deviceToken)) == [token(1), token(4)])
    }

    @Test func localTimeDeliveryFollowsEachDevicesTimeZone() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        try await t.register(app, "tokyo", token: token(1), extra: ["timeZone": "Asia/Tokyo"])      // 08:00Z = 17:00 local
        try await t.register(app, "paris", token: token(2), extra: ["timeZone": "Europe/Paris"])    // 08:00Z = 09:00 local
        try await t.register(app, "nozone", token: token(3))                                        // app default: UTC
        _ = try await t.push(app, ["target": ["all": true], "content": ["alert": "morning"], "options": ["localTime": "10:00"]])
        try await t.deliver()
        #expect(t.transport.notifications.isEmpty)
        t.clock.advance(by: 3600)          // 09:00Z = 10:00 Paris
        try await t.deliver()
        #expect(t.transport.notifications.map(\.deviceToken) == [token(2)])
        t.clock.advance(by: 3600)          // 10:00Z = 10:00 UTC
        try await t.deliver()
        #expect(t.transport.notifications.map(\.deviceToken) == [token(2), token(3)])
        t.clock.advance(by: 16 * 3600)     // 02:00Z next day = 11:00 Tokyo (10:00 passed at 01:00Z)
        try await t.deliver()
        #expect(t.transport.notifications.map(\.deviceToken) == [token(2), token(3), token(1)])
    }

    @Test(arguments: ServerStore.available) func badgeIncrementsAreAtomicUnderConcurrentPushes(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        try await t.register(app, "i", token: token(1), extra: ["badge": 2])
        func concurrently(_ n: Int, _ badge: JSON) async throws {
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<n {
                    group.addTask { try await t.push(app, ["target": ["all": true], "content": ["alert": "x", "badge": badge]]) }
                }
                try await group.waitForAll()
            }
            try await t.deliver()
        }
        try await concurrently(10, ["increment": 1])
        var badges = t.transport.notifications.compactMap { payload($0)["aps"]?["badge"]?.intValue }
        // Each push saw its own count: 3, 4, ... 12, none twice, none lost.
        #expect(badges.sorted() == Array(3...12))
        try await concurrently(2, ["decrement": 5])
        badges = t.transport.notifications.compactMap { payload($0)["aps"]?["badge"]?.intValue }
        #expect(badges.suffix(2).sorted() == [2, 7])
        #expect(await t.call("GET", "/v1/installations/i", key: app.master).body["badge"] == 2)
        // Decrements stop at zero; the device resets its badge, and the next increment starts from there.
        try await concurrently(1, ["decrement": 9])
        #expect(payload(t.transport.notifications.last!)["aps"]?["badge"] == 0)
        _ = await t.call("PATCH", "/v1/installations/i", key: app.client, json: ["badge": 0])
        try await concurrently(1, ["increment": 1])
        #expect(payload(t.transport.notifications.last!)["aps"]?["badge"] == 1)
    }

    @Test func backgroundPushesGetTheRightTypeAndPriority() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        try await t.register(app, "i", token: token(1))
        _ = try await t.push(app, ["target": ["all": true], "content": ["contentAvailable": true, "data": ["sync": true]]])
        try await t.deliver()
        let n = try #require(t.transport.notifications.first)
        #expect(n.pushType == "background" && n.priority == 5)
        #expect(payload(n)["aps"] == ["content-available": 1])
        let bad = await t.call("POST", "/v1/pushes", key: app.master,
                               json: ["target": ["all": true], "content": ["contentAvailable": true], "options": ["pushType": "background", "priority": 10]])
        #expect(bad.status == 422 && bad.errorField == "options.priority")
    }

    @Test(arguments: [
        (["content": ["alert": "x"]] as JSON, "target"),
        (["target": ["all": true]] as JSON, "content"),
        (["target": [:], "content": ["alert": "x"]] as JSON, "target"),
        (["target": ["all": true, "aliases": ["a"]], "content": ["alert": "x"]] as JSON, "target"),
        (["target": ["tokens": ["zz"]], "content": ["alert": "x"]] as JSON, "target.tokens[0]"),
        (["target": ["all": true], "content": [:]] as JSON, "content"),
        (["target": ["all": true], "content": ["alert": "x", "badge": "Increment"]] as JSON, "content.badge"),
        (["target": ["all": true], "content": ["alert": "x", "data": ["aps": 1]]] as JSON, "content.data.aps"),
        (["target": ["all": true], "content": ["alert": "x"], "options": ["ttl": 10, "expiration": "2027-01-16T00:00:00Z"]] as JSON, "options.ttl"),
        (["target": ["all": true], "content": ["alert": "x"], "options": ["sendAt": "tomorrow"]] as JSON, "options.sendAt"),
        (["target": ["all": true], "content": ["alert": "x"], "options": ["localTime": "25:00"]] as JSON, "options.localTime"),
        (["target": ["all": true], "content": ["alert": "x"], "options": ["pushType": "fax"]] as JSON, "options.pushType"),
        (["target": ["all": true], "content": ["alert": "x"], "options": ["collapseId": .string(String(repeating: "c", count: 65))]] as JSON, "options.collapseId"),
        (["target": ["all": true], "content": ["alert": .string(String(repeating: "a", count: 4090))]] as JSON, "content"),
        (["target": ["all": true], "content": ["alert": "x", "interruptionLevel": "loud"]] as JSON, "content.interruptionLevel"),
        (["target": ["all": true, "filter": ["locale": ["a": 1]]], "content": ["alert": "x"]] as JSON, "target.filter.locale"),
        // Live Activities (issue #13): Apple's rules from APNSCore, each naming the field to fix.
        (["target": ["all": true], "content": ["contentState": ["a": 1], "timestamp": 1], "options": ["pushType": "liveactivity"]] as JSON, "content.event"),
        (["target": ["all": true], "content": ["contentState": ["a": 1], "event": "update"]] as JSON, "content.timestamp"),
        (["target": ["all": true], "content": ["event": "pause", "timestamp": 1]] as JSON, "content.event"),
        (["target": ["all": true], "content": ["alert": "x", "event": "start", "timestamp": 1, "attributes": ["a": 1]]] as JSON, "content.attributesType"),
        (["target": ["all": true], "content": ["alert": "x", "event": "start", "timestamp": 1, "attributesType": "T"]] as JSON, "content.attributes"),
        (["target": ["all": true], "content": ["event": "start", "timestamp": 1, "attributesType": "T", "attributes": [:]]] as JSON, "content.alert"),
        (["target": ["all": true], "content": ["event": "update", "timestamp": 1], "options": ["priority": 1]] as JSON, "options.priority"),
        (["target": ["all": true], "content": ["event": "update", "timestamp": "yesterday"]] as JSON, "content.timestamp"),
        (["target": ["all": true], "content": ["event": "update", "timestamp": 1, "contentState": "x"]] as JSON, "content.contentState"),
    ])
    func invalidPushesAre422NamingTheFieldAndStoreNothing(body: JSON, field: String) async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        let r = await t.call("POST", "/v1/pushes", key: app.master, json: body)
        #expect(r.status == 422, "\(r.text)")
        #expect(r.errorField == field, "\(r.text)")
        #expect(await t.call("GET", "/v1/pushes", key: app.master).body["pushes"] == [])
    }

    @Test func stoppingWritesWhatTheLastRoundSent() async throws {
        let t = try await TestService { $0.fanOutBatchSize = 2; $0.dispatchBatchSize = 2; $0.dispatchConcurrency = 1 }
        let app = try await t.createApp()
        for i in 0..<6 { try await t.register(app, "i-\(i)", token: token(i)) }
        let id = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        _ = try await t.service.engine.runOnce()
        #expect(await t.status(app, id)["counts"]?["sent"] == 0)   // written by the next round
        await t.service.engine.stop()
        let counts = await t.status(app, id)["counts"]
        #expect(counts?["sent"] == 2 && counts?["targeted"] == 2)
    }

    @Test(arguments: ServerStore.available) func anUnfinishedPushResumesAfterARestartWithoutResending(_ store: ServerStore) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-restart-\(UUID().uuidString)")
        let clock = ManualClock(start)
        var app: TestService.App!
        var pushID = ""
        do {
            let t = try await TestService(directory: dir, store: store, clock: clock) { $0.fanOutBatchSize = 4; $0.dispatchBatchSize = 3; $0.dispatchConcurrency = 1 }
            app = try await t.createApp()
            for i in 0..<10 { try await t.register(app, "i-\(i)", token: token(i)) }
            pushID = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
            // Two rounds: the first page's batch sent, then written while the second page's batch is out; then a
            // delivery claimed by a "crashed" worker. The second page's outcomes are not written yet: after the
            // restart it goes out again (with the same apns-ids), as rows in flight do.
            _ = try await t.service.engine.runOnce()
            _ = try await t.service.engine.runOnce()
            #expect(t.transport.notifications.count == 6)
            let stuck = try await t.service.store.claimDeliveries(pushID: pushID, limit: 1, now: clock.now())
            #expect(stuck.count == 1)
        }
        let restarted = RecordingTransport()
        let t2 = try await TestService(directory: dir, store: store, transport: restarted, clock: clock) { $0.fanOutBatchSize = 4; $0.dispatchBatchSize = 3 }
        try await t2.deliver()
        #expect(restarted.notifications.count == 7)
        let status = await t2.status(app, pushID)
        #expect(status["status"] == "done" && status["counts"]?["sent"] == 10 && status["counts"]?["targeted"] == 10)
    }

    @Test func perPushRateLimitSpreadsDeliveryOverTime() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        for i in 0..<5 { try await t.register(app, "i-\(i)", token: token(i)) }
        _ = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"], "options": ["rateLimit": 2]])
        try await t.deliver()
        #expect(t.transport.notifications.count == 2)
        t.clock.advance(by: 1)
        try await t.deliver()
        #expect(t.transport.notifications.count == 4)
        t.clock.advance(by: 1)
        try await t.deliver()
        #expect(t.transport.notifications.count == 5)
    }

    @Test(arguments: ServerStore.available) func pushesShareTheDispatcherFairly(_ store: ServerStore) async throws {
        // Pages of one batch. One slot on SQLite: the pushes take turns. On PostgreSQL a node claims at most
        // `concurrency` fan-outs at once (the others are left to other nodes), so one slot would fan out the
        // big push alone, a page a round, before the small one: two slots there, one push each.
        let t = try await TestService(store: store) {
            $0.fanOutBatchSize = 2; $0.dispatchBatchSize = 2; $0.dispatchConcurrency = store == .postgres ? 2 : 1
        }
        let app = try await t.createApp()
        for i in 0..<6 { try await t.register(app, "i-\(i)", token: token(i)) }
        let big = try await t.push(app, ["target": ["all": true], "content": ["alert": "big"]])
        let small = try await t.push(app, ["target": ["tokens": [.string(token(0))]], "content": ["alert": "small"]])
        for _ in 0..<3 { _ = try await t.service.engine.runOnce() }
        // The small push is not stuck behind the big one.
        #expect(t.transport.batches.contains { $0.pushID == small })
        #expect(t.transport.batches.prefix(2).map(\.pushID).contains(small))
        try await t.deliver()
        #expect(await t.status(app, big)["counts"]?["sent"] == 6)
    }

    @Test func pushWithoutCredentialFailsItsDeliveriesWithAClearReason() async throws {
        let t = try await TestService()
        let app = try await t.createApp(withCredentials: false)
        try await t.register(app, "i", token: token(1))
        let id = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        try await t.deliver()
        let status = await t.status(app, id)
        #expect(status["failures"] == ["NoCredential": 1])
        #expect(t.transport.notifications.isEmpty)
    }
}
