import Synchronization

/// Group commit: concurrent small writes share one transaction, and each caller is answered once that
/// transaction has committed (so an answered write is exactly as durable as one committed alone).
///
/// There is no waiting window: writes that arrive while a transaction is committing queue up and form the
/// next one, so a lone write commits at once and a burst commits in as many transactions as the store can
/// commit one after the other. At most `maxBatch` writes a transaction; one transaction runs at a time (one
/// lane), except on a store whose transactions wait on the network more than on a lock (PostgreSQL: a
/// registration is several round trips), which runs a few at once (`lanes`).
///
/// The store supplies `perform`, which runs a batch in one transaction. It must run each write as if in a
/// savepoint of its own, undoing only that write when it throws (the write's caller gets that error; the
/// others are unaffected; both stores first run the batch without savepoints and again with them only
/// when a write threw), and return the error that stopped the whole transaction (its
/// commit failed, or the transaction could not continue), or nil once it committed.
///
/// Batches run on one of two lanes. `async`: a task takes a batch, awaits `perform`, answers, takes the
/// next. `serial`: a store with a serial queue of its own (SQLite's writer) runs each batch as a job on it
/// and queues the next batch's job itself when writes are waiting, so no batch waits for a task of the
/// cooperative pool to be scheduled between two commits (on a busy machine that hop was most of a
/// registration's wait), and the queue's other jobs still run between batches.
///
/// On the serial lane, writes that arrive while a batch's transaction is still open join it (`arrivals`),
/// up to `maxBatch`: with 16 clients registering, groups of ~5 writes became ~10, and a registration's
/// share of each commit (its WAL frames, locks, the page cache's upkeep) halved (docs/performance.md,
/// "Round 8"). Nothing waits for them: the transaction commits as soon as its writes ran and none arrived.
///
/// The writing path is `@inlinable` so that the store's module, which knows `Connection` and each write's
/// value type, compiles it specialized. Generic code run from another module looked up the metadata of
/// `Result<T, Error>`, continuations, `Write` and the rest at runtime: ~7,000 instructions per registration,
/// 3% of it (docs/performance.md, round 13).
public final class GroupCommit<Connection>: Sendable {
    /// One caller's write: its work and where its answer goes. Touched by one batch at a time.
    public final class Write: @unchecked Sendable {
        @usableFromInline let body: (Connection) throws -> Void
        @usableFromInline let answer: (_ transactionFailure: Error?) -> Void
        /// What the write is, for a store that runs some kinds of write of a batch together (PostgreSQL's
        /// registrations, `RegistrationBatch`); nil for an opaque write, which only its body can run.
        public let payload: (any Sendable)?
        @usableFromInline init(payload: (any Sendable)?, body: @escaping (Connection) throws -> Void,
                               answer: @escaping (Error?) -> Void) {
            self.payload = payload
            self.body = body
            self.answer = answer
        }

        /// Runs the caller's work, keeping its value (or the error it throws, which is rethrown) for the caller.
        /// Running it again (a retried transaction) replaces what the earlier run kept.
        @inlinable public func run(_ connection: Connection) throws { try body(connection) }
    }

    @usableFromInline struct State {
        @usableFromInline var waiting: [Write] = []
        /// Lanes with a batch running (or about to take one).
        @usableFromInline var running = 0
        @usableFromInline init() {}
    }

    @usableFromInline enum Lane: Sendable {
        case async(@Sendable ([Write]) async -> Error?)
        case serial(enqueue: @Sendable (@escaping @Sendable () -> Void) -> Void,
                    perform: @Sendable (_ batch: [Write], _ arrivals: () -> [Write]) -> Error?)
    }

    @usableFromInline let state = Mutex(State())
    @usableFromInline let maxBatch: Int
    @usableFromInline let lanes: Int
    @usableFromInline let lane: Lane

    /// Batches run from tasks: `perform` is awaited. With `lanes` above one, up to that many batches run
    /// at once, each in a transaction of its own: a write that arrives while every lane is busy waits for
    /// the first to finish. Writes of one batch are not ordered against another's, so the store must order
    /// conflicting writes itself (PostgreSQL's row and advisory locks do), and each lane holds a connection.
    public init(maxBatch: Int = 256, lanes: Int = 1, perform: @escaping @Sendable ([Write]) async -> Error?) {
        precondition(maxBatch > 0 && lanes > 0)
        self.maxBatch = maxBatch
        self.lanes = lanes
        lane = .async(perform)
    }

    /// Batches run as jobs on the store's serial queue: `enqueue` puts a job on it (behind the jobs already
    /// there), and `perform` runs a batch there, synchronously, in one transaction. Before it commits,
    /// `perform` calls `arrivals` until it returns nothing, and runs those writes in the same transaction:
    /// they are the writes that came in since the batch was taken (none once the batch holds `maxBatch`).
    public init(maxBatch: Int = 256, serial enqueue: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void,
                perform: @escaping @Sendable (_ batch: [Write], _ arrivals: () -> [Write]) -> Error?) {
        precondition(maxBatch > 0)
        self.maxBatch = maxBatch
        lanes = 1
        lane = .serial(enqueue: enqueue, perform: perform)
    }

    /// Runs `body` in the next group transaction; returns its value once that transaction committed. Throws
    /// what `body` threw (only its own changes were rolled back), or the transaction's failure. `payload`
    /// describes the write to a store's `perform` (`Write.payload`); `body` must still do all of it when run.
    @inlinable public func write<T: Sendable>(payload: (any Sendable)? = nil,
                                              _ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let outcome = Outcome<T>()
            let write = Write(payload: payload, body: { connection in
                do { outcome.result = .success(try body(connection)) } catch {
                    outcome.result = .failure(error)
                    throw error
                }
            }, answer: { failure in
                // A store that skipped a write without failing the transaction broke `perform`'s contract.
                let result = outcome.result ?? .failure(StoreError.unavailable("the group transaction did not run this write"))
                if let failure { continuation.resume(throwing: failure) } else { continuation.resume(with: result) }
            })
            let start = state.withLock { s in
                s.waiting.append(write)
                guard s.running < lanes else { return false }
                s.running += 1
                return true
            }
            guard start else { return }
            switch lane {
            case .async(let perform): Task { await drain(perform) }
            case .serial(let enqueue, let perform): enqueue { self.commitNext(perform, enqueue) }
            }
        }
    }

    /// How many writes wait for a transaction (tests watch a burst queue up).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// The next batch (at most `maxBatch` writes); empty, and the lane free again, when nobody waits.
    @inlinable func nextBatch() -> [Write] { take(atMost: maxBatch, freeingTheLane: true) }

    /// Up to `limit` waiting writes, oldest first. The caller's lane stays taken unless `freeingTheLane` and
    /// none wait.
    @inlinable func take(atMost limit: Int, freeingTheLane: Bool) -> [Write] {
        state.withLock { s in
            let n = min(limit, s.waiting.count)
            let taken = Array(s.waiting.prefix(n))
            s.waiting.removeFirst(n)
            if taken.isEmpty && freeingTheLane { s.running -= 1 }
            return taken
        }
    }

    /// Commits batches until nobody is waiting; the lane is free again when it returns.
    @inlinable func drain(_ perform: @Sendable ([Write]) async -> Error?) async {
        while true {
            let batch = nextBatch()
            if batch.isEmpty { return }
            let failure = await perform(batch)
            for write in batch { write.answer(failure) }
        }
    }

    /// One batch, with the writes that arrive while it runs, on the store's queue; then the next one's job
    /// goes behind whatever the queue holds.
    @inlinable func commitNext(_ perform: @escaping @Sendable ([Write], () -> [Write]) -> Error?,
                            _ enqueue: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        var batch = nextBatch()
        if batch.isEmpty { return }
        let failure = perform(batch) {
            let arrived = take(atMost: maxBatch - batch.count, freeingTheLane: false)
            batch += arrived
            return arrived
        }
        for write in batch { write.answer(failure) }
        enqueue { self.commitNext(perform, enqueue) }
    }
}

/// A write's value or error, set on the store's thread before the caller is answered.
@usableFromInline final class Outcome<T>: @unchecked Sendable {
    @usableFromInline var result: Result<T, Error>?
    @usableFromInline init() {}
}
