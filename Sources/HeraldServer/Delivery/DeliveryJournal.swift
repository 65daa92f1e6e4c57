import Foundation
import Synchronization
import HeraldStore

/// Journals the seqs APNs accepted of fan-out pages that are still out (`HeraldStorage.journalAccepted`),
/// so a SIGKILL re-sends only what was on the wire or answered in the last few milliseconds, not the pages
/// sent since the last page write: a page is written once, after all its batches came back, and the next
/// round writes it, so a kill used to re-send up to two pages (`delivery.fanOutBatchSize` each).
///
/// Acceptances are queued as they arrive (from the transport's I/O threads: one append under a lock); one
/// writer task commits everything queued, one transaction per push, at most once per `interval`, so the
/// cost is a few small commits a second whatever the rate. The journal is a hint beside the page: a commit
/// that fails or comes late costs duplicates after a crash, never a count.
final class DeliveryJournal: Sendable {
    /// `delivery.journalInterval`: the longest an acceptance waits for its commit, besides the commit
    /// itself, so what a kill may re-send beyond what is on the wire is about this much of the fan-out's
    /// rate. Each commit is one small transaction on the store's writer, beside the page writes.
    private let interval: Duration

    private struct State {
        /// Seqs by push, one entry per push. A list, not a map: acceptances come from one or a few pushes at a
        /// time, and the last entry's id is the very string the next acceptance carries (its batch's), so
        /// finding it compares a pointer where a map hashed 36 characters per acceptance.
        var queued: [(pushID: String, seqs: [Int64])] = []
        /// When the oldest queued acceptance arrived (for the lag metric).
        var oldest: ContinuousClock.Instant?
        var writing = false
        var idle: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())
    private let env: ServiceEnvironment

    init(env: ServiceEnvironment) {
        self.env = env
        interval = .nanoseconds(Int64(max(0, env.configuration.journalInterval ?? env.store.defaultJournalInterval) * 1e9))
    }

    /// Whether acceptances are journaled (`delivery.journalInterval` above 0).
    var isOn: Bool { interval > .zero }

    /// APNs accepted the push's member `seq`, from a page not yet written.
    func accepted(pushID: String, seq: Int64) {
        let start = state.withLock { s -> Bool in
            if s.queued.isEmpty { s.oldest = .now }
            if let i = s.queued.lastIndex(where: { $0.pushID == pushID }) {
                s.queued[i].seqs.append(seq)
            } else {
                s.queued.append((pushID, [seq]))
            }
            if s.writing { return false }
            s.writing = true
            return true
        }
        if start { Task { await writeQueued() } }
    }

    /// Returns once nothing is queued or being written (at shutdown, after the last batch came back).
    func drained() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if !s.writing { return true }
                s.idle.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    private func writeQueued() async {
        var last = ContinuousClock.now - interval
        while true {
            let wait = last + interval - .now
            if wait > .zero { try? await Task.sleep(for: wait) }
            last = .now
            let (lot, oldest, idle) = state.withLock { s -> ([(pushID: String, seqs: [Int64])], ContinuousClock.Instant?, [CheckedContinuation<Void, Never>]) in
                if s.queued.isEmpty {
                    s.writing = false
                    let idle = s.idle
                    s.idle = []
                    return ([], nil, idle)
                }
                let taken = (s.queued, s.oldest)
                s.queued = []
                s.oldest = nil
                return (taken.0, taken.1, [])
            }
            guard !lot.isEmpty else { return idle.forEach { $0.resume() } }
            for (pushID, seqs) in lot {
                do {
                    // False: the page was written meanwhile, or the fan-out is no longer this node's; nothing to keep.
                    _ = try await env.store.journalAccepted(pushID: pushID, seqs: seqs)
                    env.metrics.increment("herald_delivery_journal_seqs_total", by: Double(seqs.count))
                } catch {
                    env.log(.warning, "push \(pushID): \(seqs.count) accepted deliveries could not be journaled (\(error)); "
                            + "their page's write records them, and a crash before it would send them again")
                }
            }
            env.metrics.increment("herald_delivery_journal_commits_total", by: Double(lot.count))
            if let oldest { env.metrics.observe("herald_delivery_journal_lag_seconds", (ContinuousClock.now - oldest).seconds) }
        }
    }
}

private extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
