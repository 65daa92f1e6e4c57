import Foundation
import Testing
@testable import HeraldStore

/// The webhooks part of the storage contract, on every store: events written with the change they
/// report (only for enabled, subscribed webhooks), batches claimed under leases, attempts and their effects.
@Suite struct WebhookStorageTests {
    func webhook(_ id: String, app: String = "app1", events: [WebhookEventType], enabled: Bool = true) -> WebhookRecord {
        WebhookRecord(id: id, appID: app, url: "https://example.com/\(id)", events: events.map(\.rawValue), description: nil,
                      enabled: enabled, sealedSecret: [1, 2, 3], createdAt: t0, updatedAt: t0)
    }

    /// A push to `tokens`, fanned out and claimed.
    func claimedPush(_ store: any HeraldStorage, _ id: String = "p1", tokens: [String]) async throws -> [ClaimedDelivery] {
        for t in tokens { _ = try await register(store, iid: "i-\(t)", token: t) }
        _ = try await store.insertPush(PushRecord(id: id, appID: "app1", idempotencyKey: nil, request: "{}", status: .queued, createdAt: t0,
                                                  sendAt: nil, expiresAt: nil), idempotentSince: t0)
        _ = try await store.fanOut(pushID: id, selector: AudienceSelector(source: .all), badge: nil, limit: 1000, claim: 0, now: t0) { members in
            members.map { PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment, variant: "", notBefore: t0) }
        }
        return try await store.claimDeliveries(pushID: id, limit: 1000, now: t0)
    }

    func claimAll(_ store: any HeraldStorage, owner: String = "n1", now: Date = t0) async throws -> [ClaimedWebhookDelivery] {
        try await store.claimWebhookDeliveries(owner: owner, limit: 10, batchSize: 100, leaseUntil: now.addingTimeInterval(60), now: now)
    }

    func ack(_ at: Date = t0) -> WebhookAttemptRecord { WebhookAttemptRecord(number: 1, at: at, status: 204, body: nil, error: nil, latencyMilliseconds: 3) }
    func refused(_ at: Date = t0) -> WebhookAttemptRecord {
        WebhookAttemptRecord(number: 1, at: at, status: nil, body: nil, error: "connection refused", latencyMilliseconds: 1)
    }

    func data(_ e: WebhookEvent) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(e.data.utf8)) as? [String: Any])
    }

    @Test(arguments: StoreKind.available) func outcomesWriteEventsForSubscribedEnabledWebhooksOnly(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        try await store.createWebhook(webhook("wa", events: [.installationRetired, .deliveryFailed, .pushDone]))
        try await store.createWebhook(webhook("wb", events: [.pushDone]))
        try await store.createWebhook(webhook("wc", events: WebhookEventType.allCases, enabled: false))
        let claimed = try await claimedPush(store, tokens: ["aa01", "aa02", "aa03"])
        let stamp = t0.addingTimeInterval(5)   // APNs' "last valid" time, after the token was registered
        let outcomes = claimed.map { d -> DeliveryOutcome in
            switch d.deviceToken {
            case "aa01": DeliveryOutcome(deliveryID: d.id, seq: d.seq, deviceToken: d.deviceToken, kind: .sent(status: 200))
            case "aa02": DeliveryOutcome(deliveryID: d.id, seq: d.seq, deviceToken: d.deviceToken, kind: .failed(reason: "Unregistered", status: 410, retire: true, timestamp: stamp))
            default: DeliveryOutcome(deliveryID: d.id, seq: d.seq, deviceToken: d.deviceToken, kind: .failed(reason: "BadPriority", status: 400, retire: false, timestamp: nil))
            }
        }
        _ = try await store.recordOutcomes(pushID: "p1", outcomes: outcomes, now: t0)
        #expect(try await store.finishIfComplete(pushID: "p1", now: t0))

        let batches = try await claimAll(store)
        #expect(batches.count == 2)
        let a = try #require(batches.first { $0.webhook.id == "wa" })
        let b = try #require(batches.first { $0.webhook.id == "wb" })
        #expect(a.events.map(\.type).sorted() == ["delivery.failed", "delivery.failed", "installation.retired", "push.done"])
        #expect(a.events.last?.type == "push.done", "in the order the changes happened")
        let retired = try #require(a.events.first { $0.type == "installation.retired" })
        let retiredData = try data(retired)
        #expect(retiredData["deviceToken"] as? String == "aa02")
        #expect(retiredData["reason"] as? String == "Unregistered")
        #expect(retiredData["pushId"] as? String == "p1")
        let installation = try #require(try await store.installations(appID: "app1", query: InstallationQuery(deviceToken: "aa02", limit: 1)).first)
        #expect(retiredData["installationId"] as? String == installation.id)
        let done = try data(try #require(b.events.first))
        #expect((done["counts"] as? [String: Any])?["sent"] as? Int == 1)
        #expect((done["failures"] as? [String: Any])?["Unregistered"] as? Int == 1)
        // Both webhooks got the same push.done event: one id, so a receiver behind both sees one event.
        #expect(a.events.last?.id == b.events.first?.id)
        #expect(a.delivery.eventCount == 4 && a.delivery.kind == .events)
    }

    @Test(arguments: StoreKind.available) func pagesOpensPausesAndEndsWriteTheirEvents(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        try await store.createWebhook(webhook("w", events: WebhookEventType.allCases))
        let phone = try await register(store, iid: "i-1", token: "bb01")
        // A page written with its outcomes (the fan-out path) reports retirements too.
        _ = try await store.insertPush(PushRecord(id: "p1", appID: "app1", idempotencyKey: nil, request: "{}", status: .queued, createdAt: t0, sendAt: nil, expiresAt: nil), idempotentSince: t0)
        let members = try await store.audience(appID: "app1", selector: AudienceSelector(source: .all), after: 0, limit: 10)
        let rows = members.map { PageDelivery(planned: PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment, variant: "", notBefore: t0),
                                              outcome: .failed(reason: "Unregistered", status: 410, retire: true, timestamp: t0)) }
        #expect(try await store.recordPage(pushID: "p1", after: 0, cursor: members.last!.seq, done: true, badge: nil, rows: rows, now: t0))
        #expect(try await store.recordOpen(appID: "app1", pushID: "p1", installationID: phone.id, now: t0))
        #expect(try await store.recordOpen(appID: "app1", pushID: "p1", installationID: phone.id, now: t0) == false)
        try await store.setAppPaused(id: "app1", reason: "InvalidProviderToken", environment: "sandbox", now: t0)
        try await store.setAppPaused(id: "app1", reason: "InvalidProviderToken", environment: "sandbox", now: t0)   // already paused: no event
        try await store.saveCredential(CredentialRecord(appID: "app1", environment: "sandbox", kind: "token", sealed: [1], keyID: "K", teamID: "T",
                                                        topic: nil, createdAt: t0, updatedAt: t0))
        try await store.saveCredential(CredentialRecord(appID: "app1", environment: "sandbox", kind: "token", sealed: [1], keyID: "K", teamID: "T",
                                                        topic: nil, createdAt: t0, updatedAt: t0))   // not paused: no event
        _ = try await store.insertPush(PushRecord(id: "p2", appID: "app1", idempotencyKey: nil, request: "{}", status: .queued, createdAt: t0, sendAt: nil, expiresAt: nil), idempotentSince: t0)
        _ = try await store.cancelPush(appID: "app1", id: "p2", now: t0)
        _ = try await store.insertPush(PushRecord(id: "p3", appID: "app1", idempotencyKey: nil, request: "{}", status: .queued, createdAt: t0, sendAt: nil, expiresAt: nil), idempotentSince: t0)
        try await store.failPush(id: "p3", code: "invalid_request", message: "bad", now: t0)
        try await store.failPush(id: "p3", code: "invalid_request", message: "bad", now: t0)   // already failed: no event

        let batch = try #require(try await claimAll(store).first)
        #expect(batch.events.map(\.type) == ["delivery.failed", "installation.retired", "notification.opened", "app.paused", "credential.rejected",
                                             "app.resumed", "push.cancelled", "push.failed"])
        let paused = try data(batch.events[3])
        #expect(paused["environment"] as? String == "sandbox" && paused["reason"] as? String == "InvalidProviderToken")
        #expect(try data(batch.events[2])["installationId"] as? String == phone.id)
        #expect(((try data(batch.events[7]))["error"] as? [String: Any])?["code"] as? String == "invalid_request")
        #expect(Set(batch.events.map(\.id)).count == batch.events.count)
    }

    /// A fan-out page of 300 retired devices (written with foreign keys checked by the store, not per row) writes
    /// its 600 events many to a statement: every webhook gets all of them, in the order they happened, and each
    /// event carries one id for both webhooks.
    @Test(arguments: StoreKind.available) func aLargePageWritesEveryEventInOrderToEachWebhookWithOneID(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        for id in ["w1", "w2"] { try await store.createWebhook(webhook(id, events: [.deliveryFailed, .installationRetired])) }
        let tokens = (0..<300).map { String(format: "dd%04d", $0) }
        for t in tokens { _ = try await register(store, iid: "i-\(t)", token: t) }
        _ = try await store.insertPush(PushRecord(id: "p1", appID: "app1", idempotencyKey: nil, request: "{}", status: .queued, createdAt: t0,
                                                  sendAt: nil, expiresAt: nil), idempotentSince: t0)
        let members = try await store.audience(appID: "app1", selector: AudienceSelector(source: .all), after: 0, limit: 1000)
        let rows = members.map { PageDelivery(planned: PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment,
                                                                       variant: "", notBefore: t0),
                                              outcome: .failed(reason: "Unregistered", status: 410, retire: true, timestamp: t0)) }
        #expect(try await store.recordPage(pushID: "p1", after: 0, cursor: members.last!.seq, done: true, badge: nil, rows: rows, now: t0))
        var received: [String: [WebhookEvent]] = [:]
        while case let batches = try await claimAll(store), !batches.isEmpty {
            for b in batches {
                received[b.webhook.id, default: []] += b.events
                _ = try await store.recordWebhookAttempt(deliveryID: b.delivery.id, owner: "n1", attempt: ack(), retryAt: nil, disableAfter: 5, now: t0)
            }
        }
        let one = try #require(received["w1"]), other = try #require(received["w2"])
        #expect(one.map(\.type) == Array(repeating: ["delivery.failed", "installation.retired"], count: 300).flatMap { $0 })
        #expect(try one.map { try data($0)["deviceToken"] as? String } == tokens.flatMap { [$0, $0] })
        #expect(one.map(\.id) == other.map(\.id) && Set(one.map(\.id)).count == 600, "one id per event, the same for both webhooks")
        #expect(try other.map { try data($0)["deviceToken"] as? String } == tokens.flatMap { [$0, $0] })
    }

    @Test(arguments: StoreKind.available) func batchesHoldAtMostAHundredEventsAndGoOneAtATimeInOrder(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        try await store.createWebhook(webhook("w", events: [.deliveryFailed]))
        let claimed = try await claimedPush(store, tokens: (0..<150).map { String(format: "cc%04d", $0) })
        _ = try await store.recordOutcomes(pushID: "p1", outcomes: claimed.map {
            DeliveryOutcome(deliveryID: $0.id, seq: $0.seq, deviceToken: $0.deviceToken, kind: .failed(reason: "BadPriority", status: 400, retire: false, timestamp: nil))
        }, now: t0)
        let first = try await claimAll(store)
        #expect(first.count == 1 && first[0].events.count == 100)
        // Leased: neither this owner nor another gets it (or a second batch of the same webhook) meanwhile.
        #expect(try await claimAll(store).isEmpty)
        #expect(try await claimAll(store, owner: "n2").isEmpty)
        // Another owner's attempt record is refused.
        #expect(try await store.recordWebhookAttempt(deliveryID: first[0].delivery.id, owner: "n2", attempt: ack(), retryAt: nil, disableAfter: 5, now: t0) == nil)
        #expect(try await store.recordWebhookAttempt(deliveryID: first[0].delivery.id, owner: "n1", attempt: ack(), retryAt: nil, disableAfter: 5, now: t0) == .delivered(events: 100))
        let second = try await claimAll(store)
        try #require(second.count == 1)
        #expect(second[0].events.count == 50)
        let tokens = (first[0].events + second[0].events).compactMap { try? data($0)["deviceToken"] as? String }
        #expect(tokens == (0..<150).map { String(format: "cc%04d", $0) }, "outbox order, across batches")
        #expect(try await store.webhookQueueStats().pendingEvents == 50)
    }

    @Test(arguments: StoreKind.available) func anExpiredLeaseLetsAnotherNodeTakeTheDelivery(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        try await store.createWebhook(webhook("w", events: [.appPaused]))
        try await store.setAppPaused(id: "app1", reason: "BadCertificate", environment: "production", now: t0)
        let dead = try #require(try await claimAll(store, owner: "dead").first)
        let later = t0.addingTimeInterval(61)
        let taken = try #require(try await claimAll(store, owner: "alive", now: later).first)
        #expect(taken.delivery.id == dead.delivery.id && taken.events.map(\.id) == dead.events.map(\.id))
        #expect(try await store.recordWebhookAttempt(deliveryID: dead.delivery.id, owner: "dead", attempt: ack(), retryAt: nil, disableAfter: 5, now: later) == nil)
        // Retried: due again only at its time, with the attempt counted.
        #expect(try await store.recordWebhookAttempt(deliveryID: taken.delivery.id, owner: "alive", attempt: refused(later), retryAt: later.addingTimeInterval(10),
                                                     disableAfter: 5, now: later) == .retrying(at: later.addingTimeInterval(10)))
        #expect(try await claimAll(store, owner: "alive", now: later.addingTimeInterval(5)).isEmpty)
        let retry = try #require(try await claimAll(store, owner: "alive", now: later.addingTimeInterval(10)).first)
        #expect(retry.attemptsMade == 1 && retry.since == t0)
    }

    @Test(arguments: StoreKind.available) func aRunOfFailedDeliveriesDisablesTheWebhookAndEnablingClearsIt(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        var w = webhook("w", events: [.appPaused, .appResumed])
        try await store.createWebhook(w)
        for round in 0..<2 {
            try await store.setAppPaused(id: "app1", reason: "BadCertificate", environment: "production", now: t0)
            try await store.setAppPaused(id: "app1", reason: nil, environment: nil, now: t0)
            let d = try #require(try await claimAll(store).first)
            #expect(d.events.count == 2)
            let effect = try await store.recordWebhookAttempt(deliveryID: d.delivery.id, owner: "n1", attempt: refused(), retryAt: nil, disableAfter: 2, now: t0)
            #expect(effect == .failed(events: 2, disabled: round == 1))
        }
        let stored = try #require(try await store.webhook(appID: "app1", id: "w"))
        #expect(!stored.enabled && stored.failureRun == 2 && stored.disabledReason != nil)
        #expect(try await store.webhookQueueStats().disabled.map(\.webhookID) == ["w"])
        #expect(try await store.webhookQueueStats().pendingEvents == 0, "given up: kept as failed, not pending")
        // Disabled: records nothing.
        try await store.setAppPaused(id: "app1", reason: "BadCertificate", environment: "production", now: t0)
        #expect(try await claimAll(store).isEmpty)
        w.enabled = true
        #expect(try await store.updateWebhook(w))
        let enabled = try #require(try await store.webhook(appID: "app1", id: "w"))
        #expect(enabled.enabled && enabled.failureRun == 0 && enabled.disabledReason == nil)
        #expect(try await store.webhookQueueStats().disabled.isEmpty)
        // The failed deliveries stay listed with their attempts; one can be sent again.
        let history = try await store.webhookDeliveries(webhookID: "w", before: nil, limit: 10)
        #expect(history.map(\.state) == [.failed, .failed])
        #expect(history[0].attempts.map(\.error) == ["connection refused"])
        let page = try await store.webhookDeliveries(webhookID: "w", before: history[0].id, limit: 10)
        #expect(page.map(\.id) == [history[1].id])
        let again = try #require(try await store.enqueueWebhookDelivery(appID: "app1", webhookID: "w", id: "whd_again", sourceID: history[1].id, now: t0))
        #expect(again.kind == .redelivery && again.eventCount == 2)
        let redelivery = try #require(try await claimAll(store).first { $0.delivery.id == "whd_again" })
        #expect(redelivery.events.map(\.type) == ["app.paused", "app.resumed"])
        #expect(try await store.recordWebhookAttempt(deliveryID: "whd_again", owner: "n1", attempt: ack(), retryAt: nil, disableAfter: 2, now: t0) == .delivered(events: 2))
        #expect(try await store.enqueueWebhookDelivery(appID: "app2", webhookID: "w", id: "whd_x", sourceID: nil, now: t0) == nil, "another app's webhook")
        let ping = try #require(try await store.enqueueWebhookDelivery(appID: "app1", webhookID: "w", id: "whd_ping", sourceID: nil, now: t0))
        #expect(ping.kind == .ping && ping.eventCount == 0)
    }

    @Test(arguments: StoreKind.available) func deletingAWebhookOrPurgingRemovesItsRows(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        try await store.createWebhook(webhook("w", events: [.appPaused]))
        try await store.setAppPaused(id: "app1", reason: "BadCertificate", environment: nil, now: t0)
        let d = try #require(try await claimAll(store).first)
        _ = try await store.recordWebhookAttempt(deliveryID: d.delivery.id, owner: "n1", attempt: ack(), retryAt: nil, disableAfter: 5, now: t0)
        #expect(try await store.purgeWebhookEvents(before: t0, limit: 100) == 0, "not older than the cut-off")
        #expect(try await store.purgeWebhookEvents(before: t0.addingTimeInterval(1), limit: 100) == 1)
        #expect(try await store.webhookDeliveries(webhookID: "w", before: nil, limit: 10).isEmpty)
        try await store.setAppPaused(id: "app1", reason: nil, environment: nil, now: t0)
        #expect(try await store.deleteWebhook(appID: "app1", id: "w"))
        #expect(try await store.deleteWebhook(appID: "app1", id: "w") == false)
        #expect(try await store.webhookQueueStats().pendingEvents == 0)
    }
}
