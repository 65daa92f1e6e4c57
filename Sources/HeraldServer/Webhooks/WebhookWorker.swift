import Foundation
import Synchronization
import HeraldStore

/// Sends the events outbox to webhooks: claims due deliveries under a lease (so with several nodes each
/// batch is sent by one of them at a time), POSTs them signed, and records each attempt with its effect:
/// acknowledged, retried later (capped exponential backoff with jitter, until `webhooks.maxAge`), or given up
/// (its events kept as failed; a run of those disables the webhook). Everything it knows is in the store, so
/// a restart or another node carries on where it stopped.
public final class WebhookWorker: Sendable {
    let env: ServiceEnvironment
    let sender: WebhookSender
    /// This process's name on the leases it takes.
    let owner: String
    private let backoff: Backoff
    private let settings: WebhookSettings

    private struct State {
        var loop: Task<Void, Never>?
        var stopping = false
        var woken = false
        var waiter: CheckedContinuation<Void, Never>?
        var lastPurge: Date?
    }
    private let state = Mutex(State())

    init(env: ServiceEnvironment) {
        self.env = env
        settings = env.configuration.webhooks
        sender = WebhookSender(settings: settings)
        owner = env.newID("node_")
        backoff = Backoff(base: settings.retryBase, cap: settings.retryCap)
    }

    /// How long a claim holds: the POST's own limit plus time to record its outcome. A node that dies
    /// holding one leaves the delivery to the others (or to itself after a restart) once it expires.
    var lease: Double { settings.timeout + 30 }

    func startLoop() {
        let task = Task { [self] in
            var failures = FailureLog()
            while !state.withLock({ $0.stopping }) {
                let worked: Bool
                do {
                    worked = try await runOnce()
                    if failures.recovered() { env.log(.info, "webhook deliveries succeed again") }
                } catch {
                    if failures.shouldLog(error, now: env.clock.now()) {
                        env.log(.error, "webhook round failed: \(error); retrying every \(settings.pollInterval) s")
                    }
                    worked = false
                }
                if !worked { await idle() }
            }
        }
        state.withLock { $0.loop = task }
    }

    /// Stops claiming; the POSTs in flight finish (each within `webhooks.timeout`). A claim not recorded
    /// expires with its lease and is sent again: at least once.
    func stop() async {
        let loop = state.withLock { s -> Task<Void, Never>? in
            s.stopping = true
            return s.loop
        }
        wake()
        await loop?.value
        sender.connections?.closeIdle()
    }

    /// Looks at the outbox at once (a ping or redelivery was queued).
    func wake() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            defer { s.waiter = nil }
            if s.waiter == nil { s.woken = true }
            return s.waiter
        }
        waiter?.resume()
    }

    private func idle() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.woken || s.stopping { s.woken = false; return true }
                s.waiter = c
                return false
            }
            if now { c.resume(); return }
            let seconds = settings.pollInterval
            Task { [self] in
                try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                state.withLock { s -> CheckedContinuation<Void, Never>? in defer { s.waiter = nil }; return s.waiter }?.resume()
            }
        }
    }

    /// Sends what is due until nothing is (tests drive the worker with this when `delivery.workers` is false).
    @discardableResult
    public func runUntilIdle(maxRounds: Int = 10_000) async throws -> Int {
        var rounds = 0
        while rounds < maxRounds, try await runOnce() { rounds += 1 }
        return rounds
    }

    /// One round: claims up to `webhooks.concurrency` due deliveries and sends them at once. True if any was.
    public func runOnce() async throws -> Bool {
        let now = env.clock.now()
        try await purgeIfDue(now: now)
        let claimed = try await env.store.claimWebhookDeliveries(owner: owner, limit: settings.concurrency, batchSize: WebhookSettings.batchSize,
                                                                 leaseUntil: now.addingTimeInterval(lease), now: now)
        guard !claimed.isEmpty else { return false }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for delivery in claimed { group.addTask { try await self.send(delivery) } }
            try await group.waitForAll()
        }
        return true
    }

    private func send(_ c: ClaimedWebhookDelivery) async throws {
        let now = env.clock.now()
        let number = c.attemptsMade + 1
        var attempt: WebhookAttemptRecord
        let events = c.delivery.kind == .ping ? [Self.ping(c)] : c.events
        if events.isEmpty {
            attempt = WebhookAttemptRecord(number: number, at: now, status: nil, body: nil,
                                           error: "its events no longer exist (deleted after push.retentionDays)", latencyMilliseconds: 0)
        } else if let secret = try? env.crypto.open(c.webhook.sealedSecret) {
            let body = WebhookSender.body(events)
            let signature = WebhookSender.signature(secret: String(decoding: secret, as: UTF8.self), timestamp: Int(now.timeIntervalSince1970), body: body)
            attempt = await sender.post(body, to: c.webhook.url, headers: [
                ("Herald-Webhook-Id", c.webhook.id), ("Herald-Delivery-Id", c.delivery.id), ("Herald-Signature", signature),
            ], at: now)
        } else {
            attempt = WebhookAttemptRecord(number: number, at: now, status: nil, body: nil,
                                           error: "the webhook's secret cannot be opened (secrets.key changed); rotate the secret", latencyMilliseconds: 0)
        }
        attempt.number = number
        let answeredAt = env.clock.now()
        let effect = try await env.store.recordWebhookAttempt(deliveryID: c.delivery.id, owner: owner, attempt: attempt,
                                                              retryAt: attempt.acknowledged ? nil : retryTime(c, now: answeredAt),
                                                              disableAfter: settings.disableAfter, now: answeredAt)
        report(c, attempt, effect)
    }

    /// When to try a batch of events again: min(cap, base·2ⁿ⁻¹)·(0.5…1) after this attempt, but no later than
    /// `webhooks.maxAge` after its oldest event; nil (give up) once that age is reached. Pings and
    /// redeliveries are tried once.
    func retryTime(_ c: ClaimedWebhookDelivery, now: Date) -> Date? {
        guard c.delivery.kind == .events else { return nil }
        let deadline = c.since.addingTimeInterval(settings.maxAge)
        guard now < deadline else { return nil }
        return min(deadline, now.addingTimeInterval(backoff.delay(attempt: c.attemptsMade, random: Double.random(in: 0...1))))
    }

    private func report(_ c: ClaimedWebhookDelivery, _ attempt: WebhookAttemptRecord, _ effect: WebhookAttemptEffect?) {
        let metrics = env.metrics
        metrics.increment("herald_webhook_requests_total", [("result", attempt.acknowledged ? "acknowledged" : "failed")])
        metrics.observe("herald_webhook_request_seconds", Double(attempt.latencyMilliseconds) / 1000)
        let what = "webhook \(c.webhook.id) (app \(c.webhook.appID)) delivery \(c.delivery.id) attempt \(attempt.number)"
        let answer = attempt.status.map { "answered \($0)" } ?? "failed: \(attempt.error ?? "no answer")"
        switch effect {
        case .delivered(let n)?:
            if c.delivery.kind != .ping { metrics.increment("herald_webhook_events_delivered_total", by: Double(n)) }
        case .retrying(let at)?:
            env.log(.warning, "\(what) \(answer); trying again at \(ISO8601.string(at))")
        case .failed(let n, let disabled)?:
            if c.delivery.kind == .events { metrics.increment("herald_webhook_events_failed_total", by: Double(n)) }
            env.log(.warning, "\(what) \(answer); given up" + (c.delivery.kind == .events ? ", its \(n) events are kept as failed" : ""))
            if disabled {
                metrics.increment("herald_webhooks_disabled_total")
                env.log(.error, "webhook \(c.webhook.id) of app \(c.webhook.appID) disabled: \(settings.disableAfter) deliveries in a row failed; fix the receiver and enable it again")
            }
        case nil:
            env.log(.info, "\(what) \(answer) after its lease ended; another attempt took over")
        }
    }

    /// A ping's single event: shows the receiver the envelope and lets it check the signature.
    static func ping(_ c: ClaimedWebhookDelivery) -> WebhookEvent {
        WebhookEvent(id: "evt_ping_" + c.delivery.id.replacingOccurrences(of: "whd_", with: ""), type: "ping", appID: c.webhook.appID,
                     createdAt: c.delivery.createdAt, data: EventValue.object([("webhookId", .string(c.webhook.id))]).json)
    }

    /// Delivered and failed events go when finished pushes do (`push.retentionDays`), checked hourly.
    private func purgeIfDue(now: Date) async throws {
        let due = state.withLock { s -> Bool in
            if let last = s.lastPurge, now.timeIntervalSince(last) < 3600 { return false }
            s.lastPurge = now
            return true
        }
        guard due else { return }
        let before = now.addingTimeInterval(-env.configuration.retentionDays * 86_400)
        while try await env.store.purgeWebhookEvents(before: before, limit: 10_000) == 10_000 {}
    }
}
