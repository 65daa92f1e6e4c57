import Foundation
import Synchronization
import HeraldStore

/// The durable delivery pipeline: promotes scheduled pushes, fans audiences out into delivery rows in
/// batches, claims due deliveries (one batch per push per round, so pushes share fairly), hands them to the
/// `PushTransport`, and records outcomes (sent, failed, retired, retried with backoff, requeued on
/// credential failure). Everything it knows is in the store, so a restart resumes where it stopped.
public final class DeliveryEngine: Sendable {
    let env: ServiceEnvironment
    let transport: any PushTransport
    private let backoff: Backoff

    private struct State {
        var plans: [String: PushPlan] = [:]
        var credentials: [String: (version: Date, bundle: CredentialBundle)] = [:]
        var buckets: [String: (tokens: Double, updated: Date)] = [:]
        var rotation = 0
        var loop: Task<Void, Never>?
        var stopping = false
        var waiter: CheckedContinuation<Void, Never>?
        var woken = false
        var lastPurge: Date?
        /// Earliest pending delivery per fully fanned-out push, so waiting pushes (local time, backoff) cost
        /// no write per round. Cleared whenever the push's rows change.
        var nextDue: [String: Date] = [:]
        /// Bumped whenever outcomes are recorded for a push; a nextDue computed across a bump is discarded.
        var generation: [String: Int] = [:]
        /// Pages fanned out while the previous round was sending, their due rows already in flight.
        var nextPages: [String: FannedOutPage] = [:]
    }
    private let state = Mutex(State())

    init(env: ServiceEnvironment, transport: any PushTransport) {
        self.env = env
        self.transport = transport
        backoff = Backoff(base: env.configuration.retryBase, cap: env.configuration.retryCap)
    }

    // MARK: - Background loop

    func startLoop() {
        let task = Task { [self] in
            while !state.withLock({ $0.stopping }) {
                let worked: Bool
                do { worked = try await runOnce() } catch {
                    env.log(.error, "delivery round failed: \(error); retrying after \(env.configuration.pollInterval) s")
                    worked = false
                }
                if !worked { await idle(seconds: env.configuration.pollInterval) }
            }
        }
        state.withLock { $0.loop = task }
    }

    /// Stops claiming new work, waits (up to the grace period) for batches in flight, then returns any
    /// delivery still claimed to the queue.
    func stop() async {
        let task = state.withLock { s -> Task<Void, Never>? in
            s.stopping = true
            return s.loop
        }
        wake()
        if let task {
            // Wait for the round in flight, but never longer than the grace period: a hung transport call
            // must not hold shutdown. Its deliveries are released below and go out after the restart.
            let grace = env.configuration.shutdownGrace
            let once = ResumeOnce()
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                once.set(c)
                Task { await task.value; once.resume() }
                Task { try? await Task.sleep(for: .seconds(grace)); once.resume() }
            }
        }
        _ = try? await env.store.releaseInFlight()
    }

    /// Wakes the loop at once (a push was accepted).
    public func wake() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            let w = s.waiter
            s.waiter = nil
            if w == nil { s.woken = true }
            return w
        }
        waiter?.resume()
    }

    private func idle(seconds: Double) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.woken || s.stopping { s.woken = false; return true }
                s.waiter = c
                return false
            }
            if resumeNow { c.resume(); return }
            Task { [self] in
                try? await Task.sleep(for: .seconds(seconds))
                let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
                    let w = s.waiter; s.waiter = nil; return w
                }
                w?.resume()
            }
        }
    }

    // MARK: - One round

    /// Runs rounds until nothing is due now. Tests and `herald` tools drive the engine with this.
    @discardableResult
    public func runUntilIdle(maxRounds: Int = 100_000) async throws -> Int {
        var rounds = 0
        while rounds < maxRounds, try await runOnce() { rounds += 1 }
        return rounds
    }

    /// One round: promote, fan out one page per push, dispatch one batch per push and slot, finish.
    /// A push in the middle of its fan-out has its next page fanned out while this round sends, so the
    /// store's writer and the network work at the same time. Returns whether anything happened.
    public func runOnce() async throws -> Bool {
        let now = env.clock.now()
        var worked = try await env.store.promoteScheduled(now: now) > 0
        try await purgeIfDue(now: now)
        let active = try await env.store.activePushes()
        dropFinishedPlans(active: Set(active.map(\.id)))
        let carried = state.withLock { s in defer { s.nextPages = [:] }; return s.nextPages }
        guard !active.isEmpty || !carried.isEmpty else { return worked }
        var apps: [String: AppRecord] = [:]
        for id in Set(active.map(\.appID)) { apps[id] = try await env.store.app(id: id) }

        var plans: [PushPlan] = []
        // Only pushes whose fan-out is complete can finish; checking the others would cost a write each round.
        var fannedOut = Set(active.filter(\.fanoutDone).map(\.id))
        for push in active {
            guard let app = apps[push.appID] else { continue }
            guard let plan = try await plan(for: push, app: app) else { worked = true; continue }
            plans.append(plan)
        }
        // A page carried over for a push that has since ended (cancelled, failed) is in flight: it goes out,
        // as a batch in flight at the moment of a cancel does.
        let ended = carried.values.filter { page in !plans.contains { $0.push.id == page.plan.push.id } }
        plans += ended.map(\.plan)
        for page in ended { apps[page.app.id] = apps[page.app.id] ?? page.app }

        // Fair sharing: every push gets at most one batch per slot and round, starting at a rotating offset.
        // With fewer pushes than transport slots, a push may use several slots (claims never overlap).
        let concurrency = max(1, env.configuration.dispatchConcurrency)
        let perPush = plans.isEmpty ? 0 : max(1, concurrency / plans.count)
        var pages: [String: FannedOutPage] = carried
        for plan in plans where pages[plan.push.id] == nil && !fannedOut.contains(plan.push.id) {   // (a cached plan's record is from its first round)
            guard let app = apps[plan.push.appID] else { continue }
            pages[plan.push.id] = try await fanOut(plan, app: app, slots: perPush, now: now)
        }
        for page in pages.values {
            if page.done { fannedOut.insert(page.plan.push.id) }
            worked = true
        }
        let offset = state.withLock { s -> Int in s.rotation += 1; return s.rotation }
        var slots: [(plan: PushPlan, claimed: [ClaimedDelivery]?)] = []
        for i in plans.indices {
            let plan = plans[(i + offset) % plans.count]
            let batches = pages[plan.push.id]?.batches ?? []
            for slot in 0..<perPush { slots.append((plan, slot < batches.count ? batches[slot] : nil)) }
        }

        // The next pages of unfinished fan-outs, while this round's batches are out.
        let continuing = plans.filter { pages[$0.push.id].map { !$0.done } ?? false }
        let appsNow = apps
        async let next = fanOutNextPages(continuing, apps: appsNow, slots: perPush, now: now)
        var index = 0
        while index < slots.count {
            let chunk = slots[index..<min(index + concurrency, slots.count)]
            let fannedOut = fannedOut
            index += concurrency
            let results = await withTaskGroup(of: Bool.self) { group -> [Bool] in
                for (plan, claimed) in chunk {
                    guard let app = apps[plan.push.appID] else { continue }
                    group.addTask { [self] in
                        do { return try await dispatch(plan, app: app, claimed: claimed, fanOutComplete: fannedOut.contains(plan.push.id)) } catch {
                            env.log(.error, "dispatch of push \(plan.push.id) failed: \(error); its claimed deliveries went back to the queue")
                            return false
                        }
                    }
                }
                var out: [Bool] = []
                for await r in group { out.append(r) }
                return out
            }
            if results.contains(true) { worked = true }
        }
        try await next

        for push in active where fannedOut.contains(push.id) {
            guard try await env.store.finishIfComplete(pushID: push.id, now: env.clock.now()) else { continue }
            worked = true
        }
        return worked
    }

    /// Fans out the next page of each push and keeps it for the next round.
    private func fanOutNextPages(_ plans: [PushPlan], apps: [String: AppRecord], slots: Int, now: Date) async throws {
        for plan in plans {
            guard let app = apps[plan.push.appID] else { continue }
            let page = try await fanOut(plan, app: app, slots: slots, now: now)
            state.withLock { $0.nextPages[plan.push.id] = page }
        }
    }

    /// Deletes finished pushes older than the retention, at most once an hour and in bounded steps.
    private func purgeIfDue(now: Date) async throws {
        let due = state.withLock { s -> Bool in
            guard s.lastPurge.map({ now.timeIntervalSince($0) >= 3600 }) ?? true else { return false }
            s.lastPurge = now
            return true
        }
        guard due else { return }
        let before = now.addingTimeInterval(-env.configuration.retentionDays * 86_400)
        while try await env.store.purgeFinishedPushes(before: before, limit: 50) == 50 {}
    }

    private func dropFinishedPlans(active: Set<String>) {
        state.withLock { s in
            s.plans = s.plans.filter { active.contains($0.key) }
            s.nextDue = s.nextDue.filter { active.contains($0.key) }
            s.generation = s.generation.filter { active.contains($0.key) }
        }
    }

    /// The parsed plan of a push; nil (and the push marked failed) when its stored request no longer parses
    /// or it has no topic.
    private func plan(for push: PushRecord, app: AppRecord) async throws -> PushPlan? {
        if let cached = state.withLock({ $0.plans[push.id] }) { return cached }
        do {
            guard let object = try JSON(parsing: push.request).objectValue else { throw APIError.badRequest("stored request is not an object") }
            let spec = try PushSpec.parse(object, now: push.createdAt, checkTimes: false)
            guard let topic = spec.topic ?? app.topic else { throw APIError.missing("options.topic") }
            let plan = PushPlan(push: push, spec: spec, topic: PushPlan.topic(topic, pushType: spec.pushType),
                                defaultTimeZone: TimeZone(identifier: app.defaultTimeZone) ?? .gmt)
            state.withLock { $0.plans[push.id] = plan }
            return plan
        } catch {
            env.log(.warning, "push \(push.id) failed: its stored request is no longer valid (\(error))")
            try await env.store.failPush(id: push.id, code: "invalid_request", message: "\(error)", now: env.clock.now())
            return nil
        }
    }

    // MARK: - Dispatch

    /// Reserves the tokens available now for a push (its own limit and its app's), at most `cap`.
    /// Reserving (not just reading) keeps parallel batches of one push within the limit.
    private func reserve(_ plan: PushPlan, app: AppRecord, now: Date, upTo cap: Int) -> Int {
        state.withLock { s in
            var limit = Double(cap)
            let keys = [("push:\(plan.push.id)", plan.spec.rateLimit), ("app:\(app.id)", app.rateLimit)]
            for (key, rate) in keys {
                guard let rate else { continue }
                var b = s.buckets[key] ?? (tokens: Double(rate), updated: now)
                b.tokens = min(Double(rate), b.tokens + max(0, now.timeIntervalSince(b.updated)) * Double(rate))
                b.updated = now
                s.buckets[key] = b
                limit = min(limit, b.tokens.rounded(.down))
            }
            let granted = max(0, Int(limit))
            for (key, rate) in keys where rate != nil { s.buckets[key]!.tokens -= Double(granted) }
            return granted
        }
    }

    /// Gives back tokens reserved but not used (fewer deliveries were due).
    private func refund(_ count: Int, _ plan: PushPlan, app: AppRecord) {
        guard count > 0 else { return }
        state.withLock { s in
            for key in ["push:\(plan.push.id)", "app:\(app.id)"] where s.buckets[key] != nil {
                s.buckets[key]!.tokens += Double(count)
            }
        }
    }

    private func credential(app: AppRecord, environment: String) async throws -> CredentialBundle? {
        let records = try await env.store.credentials(appID: app.id)
        guard let record = records.first(where: { $0.environment == environment }) else { return nil }
        if let cached = state.withLock({ $0.credentials["\(app.id)|\(environment)"] }), cached.version == record.updatedAt {
            return cached.bundle
        }
        let material = try JSON(parsing: try env.crypto.open(record.sealed))
        guard let credential = CredentialInput.credential(from: material) else { return nil }
        let bundle = CredentialBundle(appID: app.id, environment: environment, credential: credential, version: record.updatedAt)
        state.withLock { $0.credentials["\(app.id)|\(environment)"] = (record.updatedAt, bundle) }
        return bundle
    }

    /// Fans out the push's next page. Rows that are due now come back already in flight, split into
    /// batches, one per slot the push has this round (within its rate limits), so a first attempt costs
    /// no separate claim. When rows of the push already wait in the queue (retries, a paused app's
    /// requeued rows), one slot is left to claim them, so they are not held back by a long fan-out.
    private func fanOut(_ plan: PushPlan, app: AppRecord, slots: Int, now: Date) async throws -> FannedOutPage {
        let batchSize = max(1, env.configuration.dispatchBatchSize)
        var freshSlots = slots
        if let waiting = try await env.store.nextDue(pushID: plan.push.id), waiting <= now { freshSlots -= 1 }
        var allowed = 0
        if app.pausedReason == nil, freshSlots > 0 {
            allowed = reserve(plan, app: app, now: now, upTo: freshSlots * batchSize)
        }
        let progress: FanOutProgress
        do {
            progress = try await env.store.fanOut(pushID: plan.push.id, selector: plan.spec.selector, badge: plan.spec.content.badge?.change,
                                                  limit: env.configuration.fanOutBatchSize, claim: allowed, now: now) { [plan] members in
                plan.plan(members, now: now)
            }
        } catch {
            refund(allowed, plan, app: app)
            throw error
        }
        refund(allowed - progress.claimed.count, plan, app: app)
        env.metrics.increment("herald_fanout_deliveries_total", by: Double(progress.planned))
        let batches = stride(from: 0, to: progress.claimed.count, by: batchSize).map {
            Array(progress.claimed[$0..<min($0 + batchSize, progress.claimed.count)])
        }
        return FannedOutPage(plan: plan, app: app, batches: batches, done: progress.done)
    }

    /// Sends one batch of the push's due deliveries (those given, or else claimed from the queue) and
    /// records what happened.
    private func dispatch(_ plan: PushPlan, app: AppRecord, claimed given: [ClaimedDelivery]?, fanOutComplete: Bool) async throws -> Bool {
        let now = env.clock.now()
        let claimed: [ClaimedDelivery]
        if let given {
            guard app.pausedReason == nil else {
                try await record(given.map { DeliveryOutcome(deliveryID: $0.id, seq: $0.seq, deviceToken: $0.deviceToken, kind: .requeue) },
                                 pushID: plan.push.id)
                return false
            }
            claimed = given
        } else {
            guard app.pausedReason == nil else { return false }
            claimed = try await claim(plan, app: app, now: now, fanOutComplete: fanOutComplete)
        }
        guard !claimed.isEmpty else { return false }
        do {
            try await send(claimed, plan, app: app, now: now)
        } catch {
            // Whatever failed (a credential that no longer opens, the store), the claimed rows must not
            // stay in flight until the next start: put them back, then report.
            try? await record(claimed.map { DeliveryOutcome(deliveryID: $0.id, seq: $0.seq, deviceToken: $0.deviceToken, kind: .requeue) },
                              pushID: plan.push.id)
            throw error
        }
        return true
    }

    /// Claims up to one batch of the push's due deliveries from the queue, within its rate limits.
    private func claim(_ plan: PushPlan, app: AppRecord, now: Date, fanOutComplete: Bool) async throws -> [ClaimedDelivery] {
        let (cachedDue, generation) = state.withLock { ($0.nextDue[plan.push.id], $0.generation[plan.push.id] ?? 0) }
        if let cachedDue, cachedDue > now { return [] }
        let allowed = reserve(plan, app: app, now: now, upTo: env.configuration.dispatchBatchSize)
        guard allowed > 0 else { return [] }
        let claimed = try await env.store.claimDeliveries(pushID: plan.push.id, limit: allowed, now: now)
        refund(allowed - claimed.count, plan, app: app)
        guard !claimed.isEmpty else {
            // Rows in flight elsewhere may come back as retries: only a concrete time, computed with no
            // outcome recorded in between, is cached.
            if fanOutComplete, let due = try await env.store.nextDue(pushID: plan.push.id) {
                state.withLock { s in
                    if (s.generation[plan.push.id] ?? 0) == generation { s.nextDue[plan.push.id] = due }
                }
            }
            return []
        }
        return claimed
    }

    /// Sends claimed deliveries and records their outcomes.
    private func send(_ claimed: [ClaimedDelivery], _ plan: PushPlan, app: AppRecord, now: Date) async throws {
        let deadline = plan.spec.expiration ?? plan.push.createdAt.addingTimeInterval(env.configuration.defaultTTL)
        var outcomes: [DeliveryOutcome] = []
        outcomes.reserveCapacity(claimed.count)
        var byEnvironment: [String: [ClaimedDelivery]] = [:]
        for d in claimed {
            if let expiration = plan.spec.expiration, now > expiration {
                outcomes.append(DeliveryOutcome(deliveryID: d.id, seq: d.seq, deviceToken: d.deviceToken,
                                                kind: .failed(reason: "Expired", status: nil, retire: false, timestamp: nil)))
            } else {
                byEnvironment[d.environment, default: []].append(d)
            }
        }
        var pauseReason: String?
        for (environment, deliveries) in byEnvironment.sorted(by: { $0.key < $1.key }) {
            let found: CredentialBundle?
            do { found = try await credential(app: app, environment: environment) } catch let error as HeraldConfiguration.Invalid {
                // Sealed under another secret key: no send can succeed until the key or the credential is fixed.
                env.log(.error, "app \(app.id): the \(environment) credential cannot be opened (\(error)); the app is paused until a credential is uploaded again")
                pauseReason = pauseReason ?? "CredentialUnreadable"
                outcomes += deliveries.map { DeliveryOutcome(deliveryID: $0.id, seq: $0.seq, deviceToken: $0.deviceToken, kind: .requeue) }
                continue
            }
            guard let bundle = found else {
                for d in deliveries {
                    outcomes.append(DeliveryOutcome(deliveryID: d.id, seq: d.seq, deviceToken: d.deviceToken,
                                                    kind: .failed(reason: "NoCredential", status: nil, retire: false, timestamp: nil)))
                }
                continue
            }
            if pauseReason != nil {
                outcomes += deliveries.map { DeliveryOutcome(deliveryID: $0.id, seq: $0.seq, deviceToken: $0.deviceToken, kind: .requeue) }
                continue
            }
            // Neighbouring rows mostly share their variant and badge: ask the plan only when they change.
            var last: (variant: String, badge: Int?, payload: [UInt8])?
            let notifications = deliveries.map { d in
                let payload: [UInt8]
                if let l = last, l.badge == d.badge, l.variant == d.variant { payload = l.payload } else {
                    payload = plan.payload(variant: d.variant, badge: d.badge)
                    last = (d.variant, d.badge, payload)
                }
                return OutgoingNotification(id: d.id, deviceToken: d.deviceToken,
                                            apnsID: stableAPNsID(pushID: plan.push.id, installationID: d.installationID, crypto: env.crypto),
                                            topic: plan.topic, pushType: plan.spec.pushType, priority: plan.spec.priority,
                                            expiration: plan.spec.expiration, collapseID: plan.spec.collapseID, payload: payload)
            }
            env.metrics.increment("herald_transport_batches_total")
            let started = ContinuousClock.now
            let results = await transport.deliver(OutgoingBatch(appID: app.id, pushID: plan.push.id, credential: bundle, notifications: notifications))
            let elapsed = ContinuousClock.now - started
            env.metrics.observe("herald_transport_batch_seconds", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            let byID = Dictionary(results.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let answeredAt = env.clock.now()
            var tally = OutcomeTally()
            for (d, n) in zip(deliveries, notifications) {
                let r = byID[d.id] ?? DeliveryResult(id: d.id, status: nil, reason: "NoResult")
                outcomes.append(outcome(d, n, r, deadline: deadline, now: answeredAt, pauseReason: &pauseReason, tally: &tally))
            }
            tally.record(in: env.metrics)
        }
        if let pauseReason {
            env.log(.warning, "app \(app.id) paused: APNs answered \(pauseReason) for its credential; upload a working credential to resume")
            try await env.store.setAppPaused(id: app.id, reason: pauseReason, at: now)
        }
        try await record(outcomes, pushID: plan.push.id)
        state.withLock { s in   // retries may have moved the earliest time
            s.generation[plan.push.id, default: 0] += 1
            s.nextDue.removeValue(forKey: plan.push.id)
        }
    }

    /// Records a batch's outcomes, retrying a few times: the notifications are already with APNs, and a
    /// row left in flight would only be requeued (and sent again) at the next start.
    private func record(_ outcomes: [DeliveryOutcome], pushID: String) async throws {
        var attempt = 0
        while true {
            do {
                _ = try await env.store.recordOutcomes(pushID: pushID, outcomes: outcomes, now: env.clock.now())
                return
            } catch {
                attempt += 1
                if attempt >= 5 { throw error }
                try? await Task.sleep(for: .milliseconds(100 * attempt))
            }
        }
    }

    private func outcome(_ d: ClaimedDelivery, _ n: OutgoingNotification, _ r: DeliveryResult, deadline: Date, now: Date,
                         pauseReason: inout String?, tally: inout OutcomeTally) -> DeliveryOutcome {
        let reason = r.reason ?? r.status.map { "HTTP \($0)" } ?? "TransportError"
        let kind: DeliveryOutcome.Kind
        switch ReasonPolicy.action(status: r.status, reason: r.reason) {
        case .sent:
            kind = .sent(status: 200)
            tally.sent += 1
        case .retire:
            kind = .failed(reason: reason, status: r.status, retire: true, timestamp: r.unregisteredAt)
            tally.add("failed", reason)
            tally.retired += 1
        case .pauseApp:
            pauseReason = pauseReason ?? reason
            kind = .requeue
            tally.add("requeued", reason)
        case .retry:
            let wait = max(r.retryAfter ?? 0, backoff.delay(attempt: d.attempts, random: Double.random(in: 0...1)))
            let at = now.addingTimeInterval(wait)
            if at > deadline || d.attempts + 1 >= env.configuration.maxAttempts {
                kind = .failed(reason: reason, status: r.status, retire: false, timestamp: nil)
                tally.add("failed", reason)
            } else {
                kind = .retry(at: at, reason: reason, status: r.status)
                tally.add("retried", reason)
            }
        case .fail:
            kind = .failed(reason: reason, status: r.status, retire: false, timestamp: nil)
            tally.add("failed", reason)
        }
        return DeliveryOutcome(deliveryID: d.id, seq: d.seq, deviceToken: d.deviceToken, kind: kind)
    }
}

/// A batch's outcomes counted for the metrics, which are then bumped once per kind rather than once
/// per delivery (each bump renders and hashes a labelled series).
struct OutcomeTally {
    var sent = 0.0
    var retired = 0.0
    private var others: [Label: Double] = [:]
    private struct Label: Hashable { var result: String; var reason: String }

    mutating func add(_ result: String, _ reason: String) { others[Label(result: result, reason: reason), default: 0] += 1 }

    func record(in metrics: Metrics) {
        if sent > 0 { metrics.increment("herald_deliveries_total", [("result", "sent")], by: sent) }
        for (label, count) in others {
            metrics.increment("herald_deliveries_total", [("result", label.result), ("reason", label.reason)], by: count)
        }
        if retired > 0 { metrics.increment("herald_installations_retired_total", by: retired) }
    }
}

/// Resumes a continuation exactly once, whichever caller comes first.
private final class ResumeOnce: Sendable {
    private let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)
    func set(_ c: CheckedContinuation<Void, Never>) { continuation.withLock { $0 = c } }
    func resume() { continuation.withLock { c in c?.resume(); c = nil } }
}

/// One fan-out page of a push: its due rows in flight, split into one batch per dispatch slot.
private struct FannedOutPage: Sendable {
    var plan: PushPlan
    var app: AppRecord
    var batches: [[ClaimedDelivery]]
    var done: Bool
}
