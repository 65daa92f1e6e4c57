import Foundation
import HeraldStore

/// The express lane: a push just accepted by the API has its first batch sent by a task of its own,
/// straight away, instead of waiting for the loop's next round. A round can take milliseconds (it writes
/// the pages the previous round sent, promotes scheduled pushes, finishes pushes) and rounds never overlap,
/// so a one-device push that arrived during one used to wait for it, then for a round of its own that read
/// every active push before reading its audience. The express task reads the audience and the credential
/// and sends; the page is written once after, with its outcomes, as a round would.
///
/// A push belongs either to the express lane or to the rounds, never both: whichever marks it first in
/// `State.owners` keeps it, so a page read without writing is never sent twice. The lane hands a push
/// back to the rounds once its first page is written; a push with more than one batch goes on there.
extension DeliveryEngine {
    enum Owner { case express, rounds }

    /// Express tasks at once; more pushes at the same moment go to the rounds, which share fairly.
    var expressLimit: Int { max(1, env.configuration.dispatchConcurrency) }

    /// What the express lane reads before it sends a push: the push's first audience page and its app's
    /// credentials. `readAhead` starts these reads while the API is still storing the push (SQLite's reader
    /// and writer run side by side), so once the insert commits the batch can go out without another wait
    /// on the reader. Nothing is sent before the push is stored: the lane starts only in `submitted`.
    struct ExpressReads: Sendable {
        fileprivate let task: Task<(members: [AudienceMember], credentials: [CredentialRecord]), any Error>
        fileprivate let selector: AudienceSelector
    }

    /// The page the lane reads: one batch at most (the fan-out's page limit, capped by the lane's batch).
    private var expressPageLimit: Int { env.configuration.dispatchBatchSize }

    /// Starts the reads of a push about to be stored that the lane will likely send (due now, not
    /// incrementing badges, whose pages are written before they are read out). Nil when it would not.
    func readAhead(appID: String, selector: AudienceSelector, incrementsBadge: Bool) -> ExpressReads? {
        // A shared store claims the fan-out first (another node may take it); its reads stay where they were.
        guard !incrementsBadge, !env.store.isShared, state.withLock({ $0.loop != nil && $0.express.count < expressLimit }) else { return nil }
        let limit = min(env.configuration.fanOutBatchSize, expressPageLimit)
        return ExpressReads(task: Task { [env] in
            async let credentials = env.store.credentials(appID: appID)
            let members = try await env.store.audience(appID: appID, selector: selector, after: 0, limit: limit)
            return (members, try await credentials)
        }, selector: selector)
    }

    /// A push was stored and accepted: sends its first batch now when the background loop runs and the
    /// lane has room, or else wakes the loop. `app` is the record the API just read; `reads`, what
    /// `readAhead` started for it; `spec`, the push as the API parsed it (the lane need not parse the
    /// stored request again).
    func submitted(_ push: PushRecord, app: AppRecord, reads: ExpressReads? = nil, spec: PushSpec? = nil) {
        // Other nodes hear of it too: one of them takes the fan-out if this node does not.
        if env.store.isShared { Task { [env] in try? await env.store.announceWork() } }
        guard push.status == .queued, !push.fanoutDone else { return wake() }
        let admitted = state.withLock { s -> Bool in
            guard s.loop != nil, !s.stopping, s.owners[push.id] == nil, s.express.count < expressLimit else { return false }
            // While what went out earlier cannot be written (a full disk), nothing more is sent: the rounds
            // hold everything back until it is written.
            guard s.unwrittenPages.isEmpty, s.unrecordedOutcomes.isEmpty else { return false }
            s.owners[push.id] = .express
            // Registered under the same lock as the ownership, so a `stop()` from now on waits for it.
            s.express[push.id] = Task { [self] in
                let handBack = await express(push, app: app, reads: reads, spec: spec)
                state.withLock { s in
                    s.owners.removeValue(forKey: push.id)
                    s.express.removeValue(forKey: push.id)
                    s.handedBack.insert(push.id)
                }
                if handBack { wake() }
            }
            return true
        }
        if !admitted { wake() }
    }

    /// Sends the push's first batch and writes its first page. Returns whether the rounds have work left
    /// with it (more pages, members not due yet, a failure to retry).
    private func express(_ push: PushRecord, app: AppRecord, reads: ExpressReads?, spec: PushSpec?) async -> Bool {
        do {
            guard let plan = try await plan(for: push, app: app, parsed: spec) else { return false }
            let now = env.clock.now()
            // Another node may have taken the fan-out already (it heard of the push by NOTIFY).
            if env.store.isShared, try await !env.store.claimFanOut(pushID: push.id, now: now) { return false }
            // One batch at most: the lane is for the first answer of a push, the rounds share the rest fairly.
            let page: FanOutPage
            let credentials: [CredentialRecord]
            if let reads, reads.selector == plan.spec.selector {
                let early = try await reads.task.value
                page = try await fanOut(plan, app: app, after: 0, slots: 1, now: now, pageLimit: expressPageLimit, fresh: true,
                                        members: early.members)
                credentials = early.credentials
            } else {
                // Asked for beside the audience: the reader answers both in one go, one wait instead of two.
                async let asked = env.store.credentials(appID: app.id)
                page = try await fanOut(plan, app: app, after: 0, slots: 1, now: now, pageLimit: expressPageLimit, fresh: true)
                credentials = try await asked
            }
            var outcomes: [[DeliveryOutcome]] = []
            var worked = false
            if let batch = page.batches.first {
                let sent = try await dispatch(plan, app: app, batch: batch, unsaved: page.unsaved != nil, fanOutComplete: page.done,
                                              credentials: credentials)
                outcomes = [sent.unrecorded]
                worked = sent.worked
            }
            var complete = page.done
            if page.unsaved != nil {
                complete = try await writeSent([push.id: (page, outcomes)], now: now).contains(push.id)
            }
            guard complete, worked else { return true }
            return try await !env.store.finishIfComplete(pushID: push.id, now: env.clock.now())
        } catch {
            env.log(.error, "express delivery of push \(push.id) failed: \(error); the delivery rounds take it over")
            return true
        }
    }
}
