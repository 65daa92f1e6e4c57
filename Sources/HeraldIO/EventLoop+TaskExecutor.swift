/// An event loop runs Swift tasks that prefer it (`withTaskExecutorPreference(loop)`): their nonisolated code,
/// and every resumption after a wait, run on the loop's thread as tasks from `execute` do. A producer that feeds
/// connections on that loop then shares their thread instead of waking another one for each batch
/// (`herald send` on a small machine, docs/performance.md).
extension EventLoop: TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
