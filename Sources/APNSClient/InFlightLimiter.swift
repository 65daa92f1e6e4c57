import Synchronization

/// Bounds the notifications in flight: senders wait for room, completions make room.
/// This is where APNs' stream limits turn into backpressure on the producer.
final class InFlightLimiter: Sendable {
    private struct State {
        var inFlight = 0
        var waiters: [(need: Int, cont: CheckedContinuation<Void, Never>)] = []
        /// What the first waiter needs, or more than the limit when none waits: a release (one per completed
        /// notification, on the event loop) compares two integers and is done until that much room is free.
        var firstNeed: Int
    }

    let limit: Int
    private let state: Mutex<State>

    init(limit: Int) {
        self.limit = max(1, limit)
        state = Mutex(State(firstNeed: self.limit + 1))
    }

    /// `n` at most `limit`: each of the `n` is released on its own, so taking less room than that would let
    /// more than the limit onto the wire (the client sends chunks of at most the limit).
    func acquire(_ n: Int = 1) async {
        precondition(n <= limit, "a chunk of \(n) is larger than the in-flight limit \(limit)")
        let need = n
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.waiters.isEmpty && s.inFlight + need <= limit {
                    s.inFlight += need
                    return true
                }
                if s.waiters.isEmpty { s.firstNeed = need }
                s.waiters.append((need, cont))
                return false
            }
            if ready { cont.resume() }
        }
    }

    func release(_ n: Int = 1) {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>]? in
            s.inFlight -= n
            guard s.inFlight <= limit - s.firstNeed else { return nil }
            var ready: [CheckedContinuation<Void, Never>] = []
            while let first = s.waiters.first, s.inFlight + first.need <= limit {
                s.inFlight += first.need
                ready.append(first.cont)
                s.waiters.removeFirst()
            }
            s.firstNeed = s.waiters.first?.need ?? limit + 1
            return ready
        }
        ready?.forEach { $0.resume() }
    }
}
