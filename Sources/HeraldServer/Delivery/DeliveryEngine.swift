import Foundation
import Synchronization
import HeraldStore

/// The durable delivery pipeline: promotes scheduled pushes, reads audiences page by page and sends each
/// page's due members (one batch per push and slot per round, so pushes share fairly), claims rows waiting
/// in the queue (retries, later times), hands batches to the `PushTransport`, and records outcomes (sent,
/// failed, retired, retried with backoff, requeued on credential failure); a page's rows are written once,
/// with their outcomes. Everything it knows is in the store, so a restart resumes where it stopped.
/// Rounds: DeliveryEngine.swift; pages: +FanOut; sending and outcomes: +Dispatch.
public final class DeliveryEngine: Sendable {
    let env: ServiceEnvironment
    let transport: any PushTransport
    let backoff: Backoff
    /// This node's lease and wake-ups when the store is shared by several nodes (PostgreSQL); nil on SQLite.
    let cluster: ClusterMembership?
    /// What APNs accepted of pages not yet written, so a crash re-sends only what was in flight (+FanOut).
    let journal: DeliveryJournal

    struct State {
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
        /// Pages fanned out while the previous round was sending.
        var nextPages: [String: FanOutPage] = [:]
        /// Pages read without writing that went out in the previous round, with their outcomes: the next
        /// round writes them while its own batches are out.
        var sentPages: [String: SentPage] = [:]
        /// What went out but could not be written (the disk was full), oldest first: written before a
        /// round sends anything else, so nothing sent is forgotten or sent twice once there is room.
        var unwrittenPages: [SentPage] = []
        var unrecordedOutcomes: [(pushID: String, outcomes: [DeliveryOutcome])] = []
        /// Who handles each push the engine has seen: the express lane or the rounds (+Express).
        var owners: [String: Owner] = [:]
        /// Express tasks running, so `stop()` waits for their batches as for a round's.
        var express: [String: Task<Void, Never>] = [:]
        /// Pushes the express lane handed back since the round began reading: the round's copy of them is
        /// older than their first page, so they wait for the next round.
        var handedBack: Set<String> = []
        /// Pushes whose page write was refused (it did not start at the stored cursor): whatever the engine
        /// read ahead of them is dropped, and their fan-out goes on from the stored cursor.
        var refused: Set<String> = []
    }
    /// A page that went out, and its outcomes in one array per batch.
    typealias SentPage = (page: FanOutPage, outcomes: [[DeliveryOutcome]])
    let state = Mutex(State())
    private let roundGate = AsyncGate()

    init(env: ServiceEnvironment, transport: any PushTransport) {
        self.env = env
        self.transport = transport
        backoff = Backoff(base: env.configuration.retryBase, cap: env.configuration.retryCap)
        cluster = env.store.isShared ? ClusterMembership(env: env) : nil
        journal = DeliveryJournal(env: env)
    }

    // MARK: - Background loop

    func startLoop() {
        let task = Task { [self] in
            var failures = FailureLog()
            while !state.withLock({ $0.stopping }) {
                let worked: Bool
                do {
                    worked = try await runOnce()
                    if failures.recovered() { env.log(.info, "delivery rounds succeed again") }
                } catch {
                    // A full disk fails every round until space is freed: say so once a minute, not four times a second.
                    if failures.shouldLog(error, now: env.clock.now()) {
                        env.log(.error, "delivery round failed: \(error); retrying every \(env.configuration.pollInterval) s")
                    }
                    worked = false
                }
                if !worked { await idle(seconds: env.configuration.pollInterval) }
            }
        }
        state.withLock { $0.loop = task }
    }

    /// With other nodes on the database: registers this node and starts renewing its lease and hearing
    /// their wake-ups. Before `startLoop`.
    func joinCluster() async {
        await cluster?.start(wake: { [weak self] in self?.wake() })
    }

    /// Stops claiming new work, waits (up to the grace period) for batches in flight, then returns any
    /// delivery still claimed to the queue.
    func stop() async {
        let tasks = state.withLock { s -> [Task<Void, Never>] in
            s.stopping = true
            return (s.loop.map { [$0] } ?? []) + s.express.values
        }
        wake()
        if !tasks.isEmpty {
            // Wait for the round in flight, but never longer than the grace period: a hung transport call
            // must not hold shutdown. Its deliveries are released below and go out after the restart.
            let grace = env.configuration.shutdownGrace
            let once = ResumeOnce()
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                once.set(c)
                Task {
                    for task in tasks { await task.value }
                    once.resume()
                }
                Task { try? await Task.sleep(for: .seconds(grace)); once.resume() }
            }
        }
        if (try? await writeUnwritten()) != nil { try? await writeSentPages() }
        await journal.drained()
        // Outcomes still unwritten are lost with the process; their rows are released and sent again
        // after the restart (or by another node), as after a crash. With other nodes on the database, only
        // this node's claims are given back.
        if let cluster { _ = await cluster.stop() } else { _ = try? await env.store.releaseInFlight() }
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

    /// One round: promote, fan out one page per push, dispatch one batch per push and slot, write what
    /// happened, finish. While a round's batches are out, the next page of each push still fanning out is
    /// read, so the store and the network work at the same time. Returns whether anything happened.
    public func runOnce() async throws -> Bool {
        // Rounds never overlap (a tool's runUntilIdle beside the loop): a page read without writing must
        // not be sent by two rounds.
        await roundGate.enter()
        defer { roundGate.leave() }
        return try await round()
    }

    private func round() async throws -> Bool {
        try await writeUnwritten()
        let now = env.clock.now()
        var worked = false
        // With several nodes only the scheduler lease's holder promotes (one statement: a push is promoted
        // once whoever runs it) and purges; the others hear of promoted pushes by NOTIFY.
        if cluster?.isLeader ?? true {
            let promoted = try await env.store.promoteScheduled(now: now)
            if promoted > 0, cluster != nil { try? await env.store.announceWork() }
            worked = promoted > 0
            try await purgeIfDue(now: now)
        }
        state.withLock { $0.handedBack.removeAll() }
        let stored = try await env.store.activePushes()
        dropFinishedPlans(active: Set(stored.map(\.id)))
        let active = takeForRounds(stored)
        // A fan-out is one node's at a time, so no page is read and sent by two; the others claim only
        // queued rows of it. Nil: every fan-out is this node's (one node per database).
        let owned: Set<String>? = cluster == nil || !active.contains(where: { !$0.fanoutDone }) ? nil
            : try await env.store.claimFanOuts(limit: max(1, env.configuration.dispatchConcurrency), now: now)
        let mayFanOut = { (id: String) in owned?.contains(id) ?? true }
        let (carried, sent) = state.withLock { s in
            defer { s.nextPages = [:]; s.sentPages = [:] }
            return (s.nextPages, s.sentPages)
        }
        guard !active.isEmpty || !carried.isEmpty || !sent.isEmpty else { return worked }
        var apps: [String: AppRecord] = [:]
        for id in Set(active.map(\.appID)) { apps[id] = try await env.store.app(id: id) }

        var plans: [PushPlan] = []
        // Only pushes whose fan-out is complete can finish; checking the others would cost a write each round.
        var fannedOut = Set(active.filter(\.fanoutDone).map(\.id))
        // Where each push's next page starts: after the page it sent last round, whose write is still to come.
        var cursors = Dictionary(active.map { ($0.id, $0.fanoutCursor) }, uniquingKeysWith: { a, _ in a })
        for (id, s) in sent where cursors[id] != nil {
            cursors[id] = s.page.unsaved?.cursor
            if s.page.done { fannedOut.insert(id) }
        }
        for push in active {
            guard let app = apps[push.appID] else { continue }
            guard let plan = try await plan(for: push, app: app) else { worked = true; continue }
            plans.append(plan)
        }
        // A page read ahead is used if it still starts where the push's last page ended. One already written
        // (its rows in flight) goes out even if its push has since ended, as a batch in flight at a cancel does.
        var pages: [String: FanOutPage] = [:]
        for (id, page) in carried {
            if let unsaved = page.unsaved {
                guard !fannedOut.contains(id), cursors[id] == unsaved.after, mayFanOut(id) else { continue }
            } else if !plans.contains(where: { $0.push.id == id }) {
                plans.append(page.plan)
                apps[page.app.id] = apps[page.app.id] ?? page.app
            }
            pages[id] = page
        }

        // Fair sharing: every push gets at most one batch per slot and round, starting at a rotating offset.
        // With fewer pushes than transport slots, a push may use several slots (claims never overlap).
        let concurrency = max(1, env.configuration.dispatchConcurrency)
        let perPush = plans.isEmpty ? 0 : max(1, concurrency / plans.count)
        let (batchesPerSlot, pageLimit) = paging(pushes: plans.count, perPush: perPush)
        for plan in plans where pages[plan.push.id] == nil && !fannedOut.contains(plan.push.id) && mayFanOut(plan.push.id) {   // (a cached plan's record is from its first round)
            guard let app = apps[plan.push.appID], let cursor = cursors[plan.push.id] else { continue }
            pages[plan.push.id] = try await fanOut(plan, app: app, after: cursor, slots: perPush, batchesPerSlot: batchesPerSlot, now: now,
                                                   pageLimit: pageLimit)
        }
        if !pages.isEmpty { worked = true }
        let offset = state.withLock { s -> Int in s.rotation += 1; return s.rotation }
        // Each slot: the page's batches it sends in turn (none: it claims a batch from the queue).
        var slots: [(plan: PushPlan, batches: [[ClaimedDelivery]], unsaved: Bool)] = []
        for i in plans.indices {
            let plan = plans[(i + offset) % plans.count]
            let page = pages[plan.push.id]
            let batches = page?.batches ?? []
            for slot in 0..<perPush {
                slots.append((plan, Array(stride(from: slot, to: batches.count, by: perPush).map { batches[$0] }), page?.unsaved != nil))
            }
        }

        // While this round's batches are out: write the pages sent last round, then read the next pages of
        // unfinished fan-outs.
        let continuing = pages.values.filter { !$0.done }
        let appsNow = apps
        async let background = writeThenRead(sent, continuing, apps: appsNow, slots: perPush, batchesPerSlot: batchesPerSlot,
                                             pageLimit: pageLimit, now: now)
        var outcomes: [String: [[DeliveryOutcome]]] = [:]
        var index = 0
        while index < slots.count {
            let chunk = slots[index..<min(index + concurrency, slots.count)]
            let fannedOut = fannedOut
            index += concurrency
            let results = await withTaskGroup(of: (String, Bool, [[DeliveryOutcome]]).self) { group in
                for (plan, batches, unsaved) in chunk {
                    guard let app = apps[plan.push.appID] else { continue }
                    group.addTask { [self] in
                        let sent = await sendSlot(plan, app: app, batches: batches, unsaved: unsaved, fanOutComplete: fannedOut.contains(plan.push.id))
                        return (plan.push.id, sent.worked, sent.unrecorded)
                    }
                }
                var out: [(String, Bool, [[DeliveryOutcome]])] = []
                for await r in group { out.append(r) }
                return out
            }
            for (id, sent, unrecorded) in results {
                if sent { worked = true }
                outcomes[id, default: []] += unrecorded
            }
        }
        // The pages that went out are kept even when the write beside them failed: they are written next round.
        let written: Set<String>
        var backgroundFailure: (any Error)?
        do { written = try await background } catch { written = []; backgroundFailure = error }
        var finishing = Set(active.filter(\.fanoutDone).map(\.id)).union(written)
        for page in pages.values {
            if page.unsaved != nil {
                state.withLock { s in
                    // A page after a refused one does not start at the stored cursor either: it went out, but it is
                    // not written, and the fan-out resumes from the stored cursor (sending those members again).
                    if s.refused.remove(page.plan.push.id) != nil {
                        s.nextPages[page.plan.push.id] = nil
                    } else {
                        s.sentPages[page.plan.push.id] = (page, outcomes[page.plan.push.id] ?? [])
                    }
                }
                worked = true
            } else if page.done {
                finishing.insert(page.plan.push.id)
            }
        }

        if let backgroundFailure { throw backgroundFailure }
        for push in active where finishing.contains(push.id) {
            guard try await env.store.finishIfComplete(pushID: push.id, now: env.clock.now()) else { continue }
            worked = true
        }
        return worked
    }

    /// How a round pages its pushes: how many batches each slot sends, one after the other, and how many
    /// members a push's page reads. A round ends when its slowest slot does, so one batch per slot left the
    /// slots idle for a third of every round (docs/performance.md, "Fan-out pages"). So when every push's
    /// slots run at once (no more pushes than slots), a push's page is `delivery.fanOutBatchSize` (8,000)
    /// and its slots send it in batches, one after the other: the wire still holds at most a batch
    /// per slot, which is what a crash can re-send. With more pushes than slots, the slots run in turn, and
    /// each push keeps one batch per slot and a page of `concurrency` x `batchSize` (2,000), as before, so no
    /// push waits behind another's whole page.
    private func paging(pushes: Int, perPush: Int) -> (batchesPerSlot: Int, pageLimit: Int) {
        let c = env.configuration
        let concurrency = max(1, c.dispatchConcurrency), batchSize = max(1, c.dispatchBatchSize)
        guard pushes > 0, pushes <= concurrency else {
            return (1, max(1, c.fanOutBatchSize / max(1, c.fanOutBatchSize / (concurrency * batchSize))))
        }
        return (max(1, c.fanOutBatchSize / (perPush * batchSize)), c.fanOutBatchSize)
    }

    /// Writes the pages sent last round (returning the pushes whose fan-out that completed) while it fans
    /// out the next page of each push, kept for the next round.
    private func writeThenRead(_ sent: [String: SentPage], _ pages: [FanOutPage],
                               apps: [String: AppRecord], slots: Int, batchesPerSlot: Int, pageLimit: Int,
                               now: Date) async throws -> Set<String> {
        // The write goes to the writer connection, the reads to the reader: they run side by side.
        async let completed = writeSent(sent, now: now)
        for page in pages {
            guard let app = apps[page.plan.push.appID] else { continue }
            let next = try await fanOut(page.plan, app: app, after: page.unsaved?.cursor ?? 0, slots: slots, batchesPerSlot: batchesPerSlot,
                                        now: now, pageLimit: pageLimit)
            state.withLock { $0.nextPages[page.plan.push.id] = next }
        }
        return try await completed
    }

    /// Writes pages that went out; returns the pushes whose fan-out that completed. A page that cannot be
    /// written is kept for the next round (`writeUnwritten`), and the first failure is thrown.
    func writeSent(_ sent: [String: SentPage], now: Date) async throws -> Set<String> {
        var completed = Set<String>()
        var failure: (any Error)?
        for (id, s) in sent {
            do {
                if try await write(s.page, outcomes: s.outcomes, now: now), s.page.done { completed.insert(id) }
            } catch {
                if error.isStoreOutage { state.withLock { $0.unwrittenPages.append(s) } }
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        return completed
    }

    /// Writes what earlier rounds sent but could not write, oldest first; throws (and keeps the rest)
    /// while that still fails, so no round sends more than the store can take.
    func writeUnwritten() async throws {
        while let (pushID, outcomes) = state.withLock({ $0.unrecordedOutcomes.first }) {
            try await keepingOnlyWhileFull {
                _ = try await env.store.recordOutcomes(pushID: pushID, outcomes: outcomes, now: env.clock.now())
            }
            state.withLock { _ = $0.unrecordedOutcomes.removeFirst() }
            outcomesRecorded(pushID: pushID)
        }
        while let page = state.withLock({ $0.unwrittenPages.first }) {
            try await keepingOnlyWhileFull { _ = try await write(page.page, outcomes: page.outcomes, now: env.clock.now()) }
            state.withLock { _ = $0.unwrittenPages.removeFirst() }
        }
    }

    /// Runs a deferred write; any failure but a full store drops it (it would fail every round), as the
    /// write would have been dropped when it first failed: its rows are requeued at the next start.
    private func keepingOnlyWhileFull(_ write: () async throws -> Void) async throws {
        do { try await write() } catch where error.isStoreOutage {
            throw error
        } catch {
            env.log(.error, "a deferred delivery write failed and is dropped (its rows are sent again after a restart): \(error)")
        }
    }

    /// Writes the pages that went out in the last round (at shutdown, so their outcomes are kept).
    func writeSentPages() async throws {
        let sent = state.withLock { s in defer { s.sentPages = [:] }; return s.sentPages }
        _ = try await writeSent(sent, now: env.clock.now())
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

    /// The active pushes that are the rounds' to handle: all but those the express lane is sending, which
    /// from now on stay with the rounds.
    private func takeForRounds(_ active: [PushRecord]) -> [PushRecord] {
        state.withLock { s in
            active.filter { push in
                if s.owners[push.id] == .express || s.handedBack.contains(push.id) { return false }
                s.owners[push.id] = .rounds
                return true
            }
        }
    }

    private static func spec(storedRequest: String, createdAt: Date) throws -> PushSpec {
        guard let object = try JSON(parsing: storedRequest).objectValue else { throw APIError.badRequest("stored request is not an object") }
        return try PushSpec.parse(object, now: createdAt, checkTimes: false)
    }

    private func dropFinishedPlans(active: Set<String>) {
        state.withLock { s in
            s.owners = s.owners.filter { $0.value == .express || active.contains($0.key) }
            s.plans = s.plans.filter { active.contains($0.key) }
            s.nextDue = s.nextDue.filter { active.contains($0.key) }
            s.generation = s.generation.filter { active.contains($0.key) }
        }
    }

    /// The parsed plan of a push; nil (and the push marked failed) when its stored request no longer parses
    /// or it has no topic. `parsed`: the spec the API parsed from that request, when the API just stored it.
    func plan(for push: PushRecord, app: AppRecord, parsed: PushSpec? = nil) async throws -> PushPlan? {
        if let cached = state.withLock({ $0.plans[push.id] }) { return cached }
        do {
            let spec = try parsed ?? Self.spec(storedRequest: push.request, createdAt: push.createdAt)
            guard let topic = spec.topic ?? app.topic else { throw APIError.missing("options.topic") }
            let plan = PushPlan(push: push, spec: spec, topic: spec.pushType.topic(from: topic),
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
    func reserve(_ plan: PushPlan, app: AppRecord, now: Date, upTo cap: Int) -> Int {
        // Several nodes share each limit equally, so together they stay within it.
        let share = Double(cluster?.liveNodes ?? 1)
        return state.withLock { s in
            var limit = Double(cap)
            let keys = [("push:\(plan.push.id)", plan.spec.rateLimit.map { Double($0) / share }),
                        ("app:\(app.id)", app.rateLimit.map { Double($0) / share })]
            for (key, rate) in keys {
                guard let rate else { continue }
                // A share below one per second still sends: one at a time, as often as the share allows.
                let burst = max(1, rate)
                var b = s.buckets[key] ?? (tokens: burst, updated: now)
                b.tokens = min(burst, b.tokens + max(0, now.timeIntervalSince(b.updated)) * rate)
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
    func refund(_ count: Int, _ plan: PushPlan, app: AppRecord) {
        guard count > 0 else { return }
        state.withLock { s in
            for key in ["push:\(plan.push.id)", "app:\(app.id)"] where s.buckets[key] != nil {
                s.buckets[key]!.tokens += Double(count)
            }
        }
    }

    /// The app's credential for `environment`, from `records` when the caller read them already.
    func credential(app: AppRecord, environment: String, records prefetched: [CredentialRecord]? = nil) async throws -> CredentialBundle? {
        let records = if let prefetched { prefetched } else { try await env.store.credentials(appID: app.id) }
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
}

extension Error {
    /// The store cannot write for a while (it is full, or the database cannot be reached): what was sent is
    /// kept and written before anything else is sent, once it can, rather than being sent again.
    var isStoreOutage: Bool {
        guard let error = self as? StoreError else { return false }
        switch error {
        case .storageFull, .unavailable: return true
        case .notFound, .conflict: return false
        }
    }
}

/// Whether a failed delivery round is worth a log line: the first of a run of failures, a different
/// error, or a minute since the last line.
struct FailureLog {
    private var last: (text: String, at: Date)?

    mutating func shouldLog(_ error: any Error, now: Date) -> Bool {
        let text = "\(error)"
        if let last, last.text == text, now.timeIntervalSince(last.at) < 60 { return false }
        last = (text, now)
        return true
    }

    /// Ends a run of failures; true if there was one.
    mutating func recovered() -> Bool {
        defer { last = nil }
        return last != nil
    }
}

/// Lets one caller at a time through; the others wait their turn in order.
private final class AsyncGate: Sendable {
    private let state = Mutex<(busy: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func enter() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { s -> Bool in
                if s.busy { s.waiting.append(c); return false }
                s.busy = true
                return true
            }
            if admitted { c.resume() }
        }
    }

    func leave() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiting.isEmpty { s.busy = false; return nil }
            return s.waiting.removeFirst()   // stays busy: handed to the next caller
        }
        next?.resume()
    }
}

/// Resumes a continuation exactly once, whichever caller comes first.
private final class ResumeOnce: Sendable {
    private let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)
    func set(_ c: CheckedContinuation<Void, Never>) { continuation.withLock { $0 = c } }
    func resume() { continuation.withLock { c in c?.resume(); c = nil } }
}
