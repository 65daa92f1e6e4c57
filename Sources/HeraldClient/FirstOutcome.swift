import Foundation

/// Resumes a continuation with the first of several competing outcomes (download done, time budget
/// spent, task cancelled); later ones are not even computed.
final class FirstOutcome<Value: Sendable>: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, any Error>?
    private var early: Result<Value, any Error>?
    private var settled = false
    private var settledActions: [@Sendable () -> Void] = []

    func wait(with continuation: CheckedContinuation<Value, any Error>) {
        lock.lock()
        if let early {
            lock.unlock()
            continuation.resume(with: early)
            return
        }
        self.continuation = continuation
        lock.unlock()
    }

    /// Runs `action` once the outcome is known (at once if it already is).
    func onSettled(_ action: @escaping @Sendable () -> Void) {
        lock.lock()
        if settled {
            lock.unlock()
            action()
            return
        }
        settledActions.append(action)
        lock.unlock()
    }

    /// Computes and delivers the outcome, unless another one came first; `compute` runs under the lock
    /// so a download finishing after the deadline never leaves a file behind.
    func settle(_ compute: () -> Result<Value, any Error>) {
        lock.lock()
        guard !settled else {
            lock.unlock()
            return
        }
        settled = true
        let result = compute()
        let continuation = self.continuation
        self.continuation = nil
        if continuation == nil { early = result }
        let actions = settledActions
        settledActions = []
        lock.unlock()
        continuation?.resume(with: result)
        actions.forEach { $0() }
    }
}
