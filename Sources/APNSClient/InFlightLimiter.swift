import Synchronization

/// Bounds the notifications in flight: senders wait for room, completions make room.
/// This is where APNs' stream limits turn into backpressure on the producer.
final class InFlightLimiter: Sendable {
    private struct State {
        var inFlight = 0
        var waiters: [(need: Int, cont: CheckedContinuation<Void, Never>)] = []
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = max(1, limit) }

    func acquire(_ n: Int = 1) async {
        let need = min(n, limit)
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.waiters.isEmpty && s.inFlight + need <= limit {
                    s.inFlight += need
                    return true
                }
                s.waiters.append((need, cont))
                return false
            }
            if ready { cont.resume() }
        }
    }

    func release(_ n: Int = 1) {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.inFlight -= n
            var ready: [CheckedContinuation<Void, Never>] = []
            while let first = s.waiters.first, s.inFlight + first.need <= limit {
                s.inFlight += first.need
                ready.append(first.cont)
                s.waiters.removeFirst()
            }
            return ready
        }
        ready.forEach { $0.resume() }
    }
}
