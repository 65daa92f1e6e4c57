import Synchronization

/// Bounds the notifications in flight: senders wait for room, completions make room.
/// This is where APNs' stream limits turn into backpressure on the producer.
final class InFlightLimiter: Sendable {
    private struct State {
        var limit: Int
        var inFlight = 0
        var waiters: [(need: Int, cont: CheckedContinuation<Void, Never>)] = []
        /// What the first waiter needs, or `Int.max` when none waits: a release (one per completed
        /// notification, on the event loop) compares two integers and is done until that much room is free.
        var firstNeed = Int.max
        /// A probe has the wire to itself (`tryAcquireAlone` until `endProbe`): nobody else gets room.
        var alone = false

        /// Takes room for the waiters that now fit, in order.
        mutating func admitWaiters() -> [CheckedContinuation<Void, Never>]? {
            guard !alone, inFlight <= limit - firstNeed else { return nil }
            var ready: [CheckedContinuation<Void, Never>] = []
            while let first = waiters.first, inFlight + first.need <= limit {
                inFlight += first.need
                ready.append(first.cont)
                waiters.removeFirst()
            }
            firstNeed = waiters.first?.need ?? Int.max
            return ready
        }
    }

    /// The smallest the limit can be set to, and so the largest `acquire` may ask for.
    let floor: Int
    private let state: Mutex<State>

    /// `floor` (at most `limit`) is how low `endProbe` may set the limit; without it the limit is fixed.
    init(limit: Int, floor: Int? = nil) {
        let limit = max(1, limit)
        self.floor = max(1, min(floor ?? limit, limit))
        state = Mutex(State(limit: limit))
    }

    /// Notifications allowed in flight now.
    var limit: Int { state.withLock { $0.limit } }

    /// `n` at most `floor`: each of the `n` is released on its own, so taking less room than that would let
    /// more than the limit onto the wire (the client sends chunks of at most the floor).
    func acquire(_ n: Int = 1) async {
        precondition(n <= floor, "a chunk of \(n) is larger than the smallest in-flight limit \(floor)")
        let need = n
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if !s.alone && s.waiters.isEmpty && s.inFlight + need <= s.limit {
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

    /// Room for one request alone, if the wire is empty now (it does not wait for the wire to drain: one slow
    /// answer would then stop every sender). Until `endProbe`, nobody else gets room.
    func tryAcquireAlone() -> Bool {
        state.withLock { s in
            guard !s.alone, s.inFlight == 0 else { return false }
            s.alone = true
            s.inFlight = 1
            return true
        }
    }

    /// Ends a probe, with a new limit (not below `floor`) or nil to keep the old one.
    func endProbe(limit newLimit: Int?) {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>]? in
            s.alone = false
            if let newLimit { s.limit = max(floor, newLimit) }
            return s.admitWaiters()
        }
        ready?.forEach { $0.resume() }
    }

    func release(_ n: Int = 1) {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>]? in
            s.inFlight -= n
            return s.admitWaiters()
        }
        ready?.forEach { $0.resume() }
    }
}
