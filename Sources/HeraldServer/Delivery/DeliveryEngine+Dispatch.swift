import Foundation
import HeraldStore

/// Dispatch: claiming a batch from the queue (or taking one a fan-out page handed over), sending it
/// through the transport, and turning APNs' answers into outcomes.
extension DeliveryEngine {
    /// Sends one batch of the push's due deliveries (those given, or else claimed from the queue) and
    /// records what happened. The outcomes of a batch from a page not yet written are returned instead:
    /// the page writes them with its rows.
    func dispatch(_ plan: PushPlan, app: AppRecord, batch given: [ClaimedDelivery]?, unsaved: Bool,
                  fanOutComplete: Bool, credentials: [CredentialRecord]? = nil) async throws -> (worked: Bool, unrecorded: [DeliveryOutcome]) {
        let now = env.clock.now()
        if let given, unsaved {
            // Not sent (the app is paused), the rows are written as pending.
            guard app.pausedReason == nil else { return (false, []) }
            return (true, try await send(given, plan, app: app, now: now, credentials: credentials, journaled: true))
        }
        let claimed: [ClaimedDelivery]
        if let given {
            guard app.pausedReason == nil else {
                try await record(given.map { DeliveryOutcome(deliveryID: $0.id, seq: $0.seq, deviceToken: $0.deviceToken, kind: .requeue) },
                                 pushID: plan.push.id)
                return (false, [])
            }
            claimed = given
        } else {
            guard app.pausedReason == nil else { return (false, []) }
            claimed = try await claim(plan, app: app, now: now, fanOutComplete: fanOutComplete)
        }
        guard !claimed.isEmpty else { return (false, []) }
        let outcomes: [DeliveryOutcome]
        do {
            outcomes = try await send(claimed, plan, app: app, now: now, credentials: credentials)
        } catch {
            // Whatever failed (a credential that no longer opens, the store), the claimed rows must not
            // stay in flight until the next start: put them back, then report.
            try? await record(claimed.map { DeliveryOutcome(deliveryID: $0.id, seq: $0.seq, deviceToken: $0.deviceToken, kind: .requeue) },
                              pushID: plan.push.id)
            throw error
        }
        try await record(outcomes, pushID: plan.push.id)
        return (true, [])
    }

    /// One slot of a round: the page's batches it was given, one after the other, or else one batch claimed
    /// from the queue. Returns whether it sent anything and the outcomes of the batches of a page not yet
    /// written, also those sent before a failure, one array per batch (joined, each outcome was copied again). It
    /// stops at a batch that sent nothing or was requeued (the app was paused: its credential refused): the later
    /// batches stay unsent, written with the page as pending.
    func sendSlot(_ plan: PushPlan, app: AppRecord, batches: [[ClaimedDelivery]], unsaved: Bool,
                  fanOutComplete: Bool) async -> (worked: Bool, unrecorded: [[DeliveryOutcome]]) {
        var worked = false
        var unrecorded: [[DeliveryOutcome]] = []
        do {
            for batch in batches.isEmpty ? [nil] : batches.map(Optional.some) {
                let sent = try await dispatch(plan, app: app, batch: batch, unsaved: unsaved, fanOutComplete: fanOutComplete)
                worked = worked || sent.worked
                if !sent.unrecorded.isEmpty { unrecorded.append(sent.unrecorded) }
                if !sent.worked || sent.unrecorded.contains(where: { if case .requeue = $0.kind { true } else { false } }) { break }
            }
        } catch {
            env.log(.error, "dispatch of push \(plan.push.id) failed: \(error); " + (error.isStoreOutage
                ? "what was sent is kept and written before anything else is sent, once the store can write again"
                : "its claimed deliveries went back to the queue"))
        }
        return (worked, unrecorded)
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

    /// Sends deliveries and says what became of each (pausing the app if APNs rejects its credential).
    /// `journaled`: the deliveries are of a page not yet written, whose accepted members are journaled.
    private func send(_ claimed: [ClaimedDelivery], _ plan: PushPlan, app: AppRecord, now: Date,
                      credentials: [CredentialRecord]?, journaled: Bool = false) async throws -> [DeliveryOutcome] {
        let deadline = plan.spec.expiration ?? plan.push.createdAt.addingTimeInterval(env.configuration.defaultTTL)
        var outcomes: [DeliveryOutcome] = []
        outcomes.reserveCapacity(claimed.count)
        var live = claimed
        if let expiration = plan.spec.expiration, now > expiration {
            outcomes = claimed.map { DeliveryOutcome(deliveryID: $0.id, seq: $0.seq, deviceToken: $0.deviceToken,
                                                     kind: .failed(reason: "Expired", status: nil, retire: false, timestamp: nil)) }
            live = []
        }
        var pauseReason: String?
        var pausedEnvironment: String?   // named in the app.paused event
        for (environment, deliveries) in Self.byEnvironment(live) {
            defer { if pauseReason != nil, pausedEnvironment == nil { pausedEnvironment = environment } }
            let found: CredentialBundle?
            do { found = try await credential(app: app, environment: environment, records: credentials) } catch let error as HeraldConfiguration.Invalid {
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
            // Rows are read in place by index here and below: iterating copies each row, a retain and a release of
            // each of its strings, several times per notification on the fan-out's busiest path.
            var last: (variant: String, badge: Int?, payload: [UInt8])?
            let notifications = deliveries.indices.map { i in
                let payload: [UInt8]
                if let l = last, l.badge == deliveries[i].badge, l.variant == deliveries[i].variant { payload = l.payload } else {
                    payload = plan.payload(variant: deliveries[i].variant, badge: deliveries[i].badge)
                    last = (deliveries[i].variant, deliveries[i].badge, payload)
                }
                let apnsID = stableAPNsID(pushID: plan.push.id, installationID: deliveries[i].installationID)
                return OutgoingNotification(id: deliveries[i].id, deviceToken: deliveries[i].deviceToken, apnsID: apnsID,
                                            topic: plan.topic, pushType: plan.spec.pushType.rawValue, priority: plan.spec.priority,
                                            expiration: plan.spec.expiration, collapseID: plan.spec.collapseID, payload: payload)
            }
            env.metrics.increment("herald_transport_batches_total")
            let started = ContinuousClock.now
            var batch = OutgoingBatch(appID: app.id, pushID: plan.push.id, credential: bundle, notifications: notifications)
            if journaled, journal.isOn {
                batch.onAccepted = { [journal, pushID = plan.push.id] position in journal.accepted(pushID: pushID, seq: deliveries[position].seq) }
            }
            let results = await transport.deliver(batch)
            let elapsed = ContinuousClock.now - started
            env.metrics.observe("herald_transport_batch_seconds", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            // Results in the batch's order (`APNSClientTransport`'s) are matched by position, without a map by id.
            let inOrder = results.count == deliveries.count && results.indices.allSatisfy { results[$0].id == deliveries[$0].id }
            let byID = inOrder ? [:] : Dictionary(results.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let answeredAt = env.clock.now()
            var tally = OutcomeTally()
            for i in deliveries.indices {
                let id = deliveries[i].id
                let r = inOrder ? results[i] : byID[id] ?? DeliveryResult(id: id, status: nil, reason: "NoResult")
                let kind = outcomeKind(attempts: deliveries[i].attempts, r, deadline: deadline, now: answeredAt, pauseReason: &pauseReason, tally: &tally)
                outcomes.append(DeliveryOutcome(deliveryID: id, seq: deliveries[i].seq, deviceToken: deliveries[i].deviceToken, kind: kind))
            }
            tally.record(in: env.metrics)
            env.credentialOutcomes.record(appID: app.id, environment: environment, accepted: tally.sent > 0, rejectedReason: pauseReason, at: answeredAt)
        }
        if let pauseReason {
            env.log(.warning, "app \(app.id) paused: APNs answered \(pauseReason) for its credential; upload a working credential to resume")
            defer { env.apps.forget(id: app.id) }
            try await env.store.setAppPaused(id: app.id, reason: pauseReason, environment: pausedEnvironment, now: now)
        }
        return outcomes
    }

    /// The deliveries of each environment, in the environments' order. A batch is almost always of one
    /// environment: that is checked by comparing each delivery's with the first's (short strings, compared
    /// as two words), rather than hashed into a map per delivery.
    static func byEnvironment(_ deliveries: [ClaimedDelivery]) -> [(environment: String, deliveries: [ClaimedDelivery])] {
        guard let first = deliveries.first?.environment else { return [] }
        if deliveries.indices.allSatisfy({ deliveries[$0].environment == first }) { return [(first, deliveries)] }   // read in place, not copied
        return Dictionary(grouping: deliveries, by: \.environment).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Records a batch's outcomes, retrying a few times: a row left in flight would only be requeued (and
    /// sent again) at the next start. Outcomes the store cannot take are kept and written before the next
    /// round sends anything (`writeUnwritten`).
    private func record(_ outcomes: [DeliveryOutcome], pushID: String) async throws {
        do {
            try await retrying { _ = try await env.store.recordOutcomes(pushID: pushID, outcomes: outcomes, now: env.clock.now()) }
        } catch {
            if error.isStoreOutage { state.withLock { $0.unrecordedOutcomes.append((pushID, outcomes)) } }
            throw error
        }
        outcomesRecorded(pushID: pushID)
    }

    /// Retries and requeued rows may have moved a push's earliest due time.
    func outcomesRecorded(pushID: String) {
        state.withLock { s in
            s.generation[pushID, default: 0] += 1
            s.nextDue.removeValue(forKey: pushID)
        }
    }

    /// Writes outcomes, retrying a few times: the notifications are already with APNs.
    func retrying<T>(_ write: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do { return try await write() } catch {
                attempt += 1
                // A full disk stays full for longer than these retries; the caller keeps what it could not write.
                if attempt >= 5 || error.isStoreOutage { throw error }
                try? await Task.sleep(for: .milliseconds(100 * attempt))
            }
        }
    }

    /// What an answer makes of a delivery that had `attempts` before. It takes the one field it reads, not the
    /// delivery: passed whole (even `borrowing`, inlined), the delivery was copied, a retain of each string.
    @inline(__always)
    private func outcomeKind(attempts: Int, _ r: borrowing DeliveryResult, deadline: Date, now: Date,
                             pauseReason: inout String?, tally: inout OutcomeTally) -> DeliveryOutcome.Kind {
        let action = ReasonPolicy.action(status: r.status, reason: r.reason)
        if action == .sent {   // nearly every answer: no reason text to build
            tally.sent += 1
            return .sent(status: 200)
        }
        let reason = r.reason ?? r.status.map { "HTTP \($0)" } ?? "TransportError"
        let kind: DeliveryOutcome.Kind
        switch action {
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
            let wait = max(r.retryAfter ?? 0, backoff.delay(attempt: attempts, random: Double.random(in: 0...1)))
            let at = now.addingTimeInterval(wait)
            if at > deadline || attempts + 1 >= env.configuration.maxAttempts {
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
        return kind
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
