import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Holds a URLSession task so Swift task cancellation can reach it, whichever comes first.
final class RunningTask: @unchecked Sendable {
    // @unchecked: `task` and `cancelled` are only touched while holding `lock`.
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var cancelled = false

    func start(_ task: URLSessionTask) {
        lock.lock()
        self.task = task
        let cancelled = self.cancelled
        lock.unlock()
        if cancelled { task.cancel() } else { task.resume() }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}
