import Synchronization

/// Counts the notifications of one `send` call that still await their result, so the call returns when
/// its own are done rather than when the whole client is idle. A completion is one atomic decrement;
/// only the last one takes the lock to resume the waiting sender.
final class OutstandingResults: Sendable {
    /// Starts at 1 for the sender itself, dropped once it waits: the count cannot reach zero before
    /// the waiter is registered.
    private let count = Atomic<Int>(1)
    private let waiter = Mutex<CheckedContinuation<Void, Never>?>(nil)

    func add() { count.wrappingAdd(1, ordering: .relaxed) }

    func finishOne() {
        if count.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0 { resumeWaiter() }
    }

    func waitUntilNone() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            waiter.withLock { $0 = c }
            if count.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0 { resumeWaiter() }
        }
    }

    private func resumeWaiter() {
        let c = waiter.withLock { w -> CheckedContinuation<Void, Never>? in
            defer { w = nil }
            return w
        }
        c?.resume()
    }
}
