import Foundation
import HeraldStore

/// One fan-out page of a push and the part of it that goes out this round.
struct FanOutPage: Sendable {
    var plan: PushPlan
    var app: AppRecord
    /// Due members in batches: batch i goes to slot i modulo the push's slots this round, each slot sending
    /// its batches one after the other.
    var batches: [[ClaimedDelivery]]
    var done: Bool
    /// Set for a page read without writing: its rows are written once, with their outcomes, after it went
    /// out (`DeliveryEngine.write`). Its batches' ids are indexes into `rows`.
    var unsaved: Unsaved?

    struct Unsaved: Sendable {
        /// Where the page starts (the push's cursor when it was read) and ends.
        var after: Int64
        var cursor: Int64
        var rows: [PlannedDelivery]
        /// Members APNs accepted before a crash (journaled, `DeliveryJournal`): written as sent, not sent again.
        var journaled: Set<Int64> = []
    }
}

/// Fan-out: reading a push's audience page by page and choosing what of each page goes out now.
extension DeliveryEngine {
    /// Fans out the push's next page after `after`. Members that are due now, up to one batch per slot the
    /// push has this round (within its rate limits), are handed back in batches. When rows of the push
    /// already wait in the queue (retries, requeued rows), one slot is left to claim them, so they are not
    /// held back by a long fan-out, and the page shrinks to what the other slots send.
    ///
    /// A page is read without writing and written once after it went out, so a first attempt costs one
    /// insert. A push that increments badges is the exception: each increment must be stored before its
    /// value is sent, so its page is written first, its due rows in flight (`after` is then unused: the
    /// store reads the cursor in the same transaction).
    ///
    /// `batchesPerSlot`: how many batches each slot sends this round, one after the other (the wire holds at
    /// most one per slot; `DeliveryEngine.paging`).
    /// `pageLimit` caps the page below `delivery.fanOutBatchSize`; `fresh` says the push has never been
    /// fanned out, so no row of it can wait in the queue and the store is not asked. `members`: the page,
    /// already read by the caller with this page's limit (the express lane reads it ahead).
    func fanOut(_ plan: PushPlan, app: AppRecord, after: Int64, slots: Int, batchesPerSlot: Int = 1, now: Date,
                pageLimit: Int? = nil, fresh: Bool = false, members known: [AudienceMember]? = nil) async throws -> FanOutPage {
        let batchSize = max(1, env.configuration.dispatchBatchSize)
        let batchesPerSlot = max(1, batchesPerSlot)
        let pageSize = min(env.configuration.fanOutBatchSize, pageLimit ?? .max)
        var freshSlots = slots
        if !fresh, let waiting = try await env.store.nextDue(pushID: plan.push.id), waiting <= now { freshSlots -= 1 }
        var allowed = 0
        if app.pausedReason == nil, freshSlots > 0 {
            allowed = reserve(plan, app: app, now: now, upTo: freshSlots * batchSize * batchesPerSlot)
        }
        // While rows wait for the slot left to them, a page reads no more than its other slots send now:
        // a remainder would join the queue, so every later page would leave a slot to it as well, and each
        // of its rows would pay a claim and a second write. When nothing can go out (one slot per push, a
        // paused app, a spent rate limit) a whole page is queued, so the fan-out still moves a page a round.
        let limit = freshSlots < slots && allowed > 0 ? min(pageSize, allowed) : pageSize
        let page: FanOutPage
        do {
            if case .add = plan.spec.content.badge?.change {
                let progress = try await env.store.fanOut(pushID: plan.push.id, selector: plan.spec.selector, badge: plan.spec.content.badge?.change,
                                                          limit: limit, claim: allowed, now: now) { [plan] members in
                    plan.plan(members, now: now)
                }
                env.metrics.increment("herald_fanout_deliveries_total", by: Double(progress.planned))
                page = FanOutPage(plan: plan, app: app, batches: progress.claimed.batches(of: batchSize), done: progress.done)
            } else {
                let members = if let known { known } else {
                    try await env.store.audience(appID: plan.push.appID, selector: plan.spec.selector, after: after, limit: limit)
                }
                let rows = plan.plan(members, now: now)
                // Beyond the cursor, the journal holds only what a process that stopped before writing this page
                // (a crash, a lost lease) had sent and APNs accepted; a push never fanned out has nothing there.
                var journaled: Set<Int64> = []
                if !fresh, let last = members.last {
                    journaled = Set(try await env.store.journaledSeqs(pushID: plan.push.id, after: after, through: last.seq))
                    if !journaled.isEmpty {
                        env.log(.info, "push \(plan.push.id): \(journaled.count) members APNs accepted before a restart are written as sent, not sent again")
                    }
                }
                // By index: a row is only read here, and iterating would copy it (a retain of each string). Due rows
                // go straight into their batches: split afterwards, each was copied again.
                var due = Batches<ClaimedDelivery>(size: batchSize, expected: min(allowed, rows.count))
                for index in rows.indices where due.count < allowed && rows[index].notBefore <= now && !journaled.contains(rows[index].seq) {
                    due.append(ClaimedDelivery(id: Int64(index), seq: rows[index].seq, installationID: rows[index].installationID,
                                               deviceToken: rows[index].deviceToken, environment: rows[index].environment,
                                               variant: rows[index].variant, badge: plan.badgeValue, attempts: 0))
                }
                env.metrics.increment("herald_fanout_deliveries_total", by: Double(rows.count))
                page = FanOutPage(plan: plan, app: app, batches: due.batches, done: members.count < limit,
                                  unsaved: .init(after: after, cursor: members.last?.seq ?? after, rows: rows, journaled: journaled))
            }
        } catch {
            refund(allowed, plan, app: app)
            throw error
        }
        refund(allowed - page.batches.reduce(0) { $0 + $1.count }, plan, app: app)
        return page
    }

    /// Writes a page read without writing, with what its batches' outcomes were; members not sent are
    /// queued. Returns whether it was written: a page that no longer starts at the push's cursor (an
    /// earlier page was never written) is dropped, and its members are read and sent again.
    func write(_ page: FanOutPage, outcomes: [[DeliveryOutcome]], now: Date) async throws -> Bool {
        guard let unsaved = page.unsaved else { return false }
        var byIndex = [DeliveryOutcome.Kind?](repeating: nil, count: unsaved.rows.count)
        for batch in outcomes {
            for i in batch.indices where batch[i].deliveryID >= 0 && batch[i].deliveryID < byIndex.count {
                byIndex[Int(batch[i].deliveryID)] = batch[i].kind
            }
        }
        // The journal is asked only about a row without an outcome (`??` evaluates its right side lazily).
        let rows = unsaved.rows.indices.map { i in
            PageDelivery(planned: unsaved.rows[i], outcome: byIndex[i] ?? (unsaved.journaled.contains(unsaved.rows[i].seq) ? .sent(status: 200) : nil))
        }
        let pushID = page.plan.push.id
        let written = try await retrying {
            try await env.store.recordPage(pushID: pushID, after: unsaved.after, cursor: unsaved.cursor, done: page.done,
                                           badge: page.plan.badgeValue, rows: rows, now: env.clock.now())
        }
        if !written {
            env.log(.warning, "push \(pushID): a fan-out page after \(unsaved.after) no longer follows the stored cursor; it will be read again")
            _ = state.withLock { $0.refused.insert(pushID) }
        }
        outcomesRecorded(pushID: pushID)
        return written
    }
}

/// Elements appended in consecutive batches of `size`, each filled in place.
struct Batches<Element> {
    let size: Int
    /// How many elements are expected at most: a batch reserves room for its share of them only.
    let expected: Int
    private(set) var batches: [[Element]] = []
    private(set) var count = 0

    init(size: Int, expected: Int) {
        self.size = max(1, size)
        self.expected = expected
    }

    /// `consuming`: the element moves into its batch; borrowed, it was copied in and the caller's destroyed.
    mutating func append(_ element: consuming Element) {
        if count % size == 0 {
            batches.append([])
            batches[batches.count - 1].reserveCapacity(min(size, max(1, expected - count)))
        }
        batches[batches.count - 1].append(element)
        count += 1
    }
}

extension Array where Element == ClaimedDelivery {
    func batches(of size: Int) -> [[ClaimedDelivery]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
