import Synchronization

/// Counts the notifications of one `send` call that still await their result, so the call returns when
/// its own are done rather than when the whole client is idle.
final class OutstandingResults: Sendable {
    private struct State {
        var count = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func add() { state.withLock { $0.count += 1 } }

    func finishOne() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.count -= 1
            guard s.count == 0 else { return nil }
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    func waitUntilNone() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s -> Bool in
                if s.count == 0 { return true }
                s.waiter = c
                return false
            }
            if done { c.resume() }
        }
    }
}
