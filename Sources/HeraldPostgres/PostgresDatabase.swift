import Foundation
import Synchronization
import HeraldStore

/// A small pool of libpq connections. Each connection has its own serial dispatch queue, and every libpq
/// call (which blocks on the network) runs there, never on Swift's cooperative pool; async callers wait
/// for a free connection and resume through continuations, as with `SQLiteDatabase`.
final class PostgresDatabase: Sendable {
    /// A pooled connection and the queue it runs on. `connection` is only touched on `queue` (it is nil until
    /// first use), which is why the slot is `@unchecked Sendable`.
    fileprivate final class Slot: @unchecked Sendable {
        let queue: DispatchQueue
        var connection: PostgresConnection?
        init(index: Int, connection: PostgresConnection?) {
            queue = DispatchQueue(label: "herald.postgres.\(index)")
            self.connection = connection
        }

        /// The slot's connection, opened (again) if it is not; only on `queue`.
        func open(_ conninfo: String) throws -> PostgresConnection {
            if let open = connection {
                try open.ensureOpen()
                return open
            }
            let opened = try PostgresConnection(conninfo: conninfo)
            connection = opened
            return opened
        }
    }

    private struct State {
        /// Indexes of slots not lent out.
        var idle: [Int]
        var waiters: [CheckedContinuation<Int, Never>] = []
    }

    private let conninfo: String
    private let slots: [Slot]
    private let state: Mutex<State>
    /// The storage-full failure of the last write, until a write succeeds again.
    private let storageFailure = Mutex<StoreError?>(nil)

    /// Opens one connection now (a wrong URL or an unreachable server fails here); the others open on
    /// first use, so a store that is barely used holds one connection.
    init(conninfo: String, size: Int) throws {
        precondition(size > 0)
        self.conninfo = conninfo
        let first = try PostgresConnection(conninfo: conninfo)
        slots = (0..<size).map { Slot(index: $0, connection: $0 == 0 ? first : nil) }
        state = Mutex(State(idle: Array((0..<size).reversed())))
    }

    private func acquire() async -> Int {
        await withCheckedContinuation { continuation in
            let index: Int? = state.withLock { s in
                if let i = s.idle.popLast() { return i }
                s.waiters.append(continuation)
                return nil
            }
            if let index { continuation.resume(returning: index) }
        }
    }

    private func release(_ index: Int) {
        let waiter: CheckedContinuation<Int, Never>? = state.withLock { s in
            if s.waiters.isEmpty { s.idle.append(index); return nil }
            return s.waiters.removeFirst()
        }
        waiter?.resume(returning: index)
    }

    /// Lends a connection to `body` on that connection's queue. A lost or refused connection is
    /// `StoreError.unavailable`; the connection is opened again on its next use.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        do {
            return try await lend(body)
        } catch let error as PostgresError where error.isConnectionFailure {
            throw StoreError.unavailable(error.message)
        }
    }

    private func lend<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let index = await acquire()
        defer { release(index) }
        let slot = slots[index]
        let conninfo = self.conninfo
        return try await withCheckedThrowingContinuation { continuation in
            slot.queue.async {
                continuation.resume(with: Result { try body(try slot.open(conninfo)) })
            }
        }
    }

    /// Lends a connection that is idle right now to a caller already running on another connection's queue,
    /// for work beside its transaction (`PostgresStore.importInstallations` writes half a batch on it); nil
    /// when none is idle. Never waits: callers that each hold a connection and waited for a second could
    /// wait forever once every connection is held that way.
    func lendIdle() -> SideConnection? {
        guard let index = state.withLock({ $0.idle.popLast() }) else { return nil }
        return SideConnection(slot: slots[index], conninfo: conninfo) { [self] in release(index) }
    }

    /// Runs `body` in one read-committed write transaction. A transaction that lost a serialization race
    /// or a deadlock runs again, up to `retries` times, then throws `StoreError.unavailable` (a 503: the
    /// caller may try again); one that failed for lack of space throws `StoreError.storageFull`.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        do {
            let result = try await withConnection { connection in
                var attempt = 0
                while true {
                    do {
                        return try connection.transaction { try body(connection) }
                    } catch let error as PostgresError where error.isRetryable {
                        attempt += 1
                        guard attempt <= Self.retries else {
                            throw StoreError.unavailable("the write kept losing to concurrent ones (\(error.message)); try again")
                        }
                    }
                }
            }
            storageFailure.withLock { $0 = nil }
            return result
        } catch let error as PostgresError where error.isStorageFull {
            let failure = StoreError.storageFull(error.message)
            storageFailure.withLock { $0 = failure }
            throw failure
        }
    }

    /// How many times a transaction that lost a serialization race or a deadlock runs again.
    static let retries = 5

    /// Runs `body` in a read-only repeatable-read transaction: one consistent snapshot, as a SQLite read.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withConnection { connection in
            try connection.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { try body(connection) }
        }
    }

    func checkStorage() -> StoreError? { storageFailure.withLock { $0 } }

    /// Closes every open connection; the pool must not be used afterwards.
    func close() async {
        for slot in slots {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                slot.queue.async {
                    slot.connection?.close()
                    continuation.resume()
                }
            }
        }
    }
}

/// A connection lent by `PostgresDatabase.lendIdle` beside the one its borrower runs on. Its libpq calls
/// run on its own queue, as every connection's do; the borrower waits for them on its own connection's
/// queue, never on the cooperative pool. `giveBack()` exactly once.
final class SideConnection: Sendable {
    private let slot: PostgresDatabase.Slot
    private let conninfo: String
    private let release: @Sendable () -> Void

    fileprivate init(slot: PostgresDatabase.Slot, conninfo: String, release: @escaping @Sendable () -> Void) {
        self.slot = slot
        self.conninfo = conninfo
        self.release = release
    }

    /// Runs `body` on this connection and waits for it.
    func run<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try slot.queue.sync { try body(try slot.open(conninfo)) }
    }

    /// Starts `body` on this connection and returns at once; `Pending.wait()` waits for it to end.
    func start(_ body: @escaping @Sendable (PostgresConnection) throws -> Void) -> Pending {
        let pending = Pending()
        let (slot, conninfo) = (self.slot, self.conninfo)
        slot.queue.async {
            do {
                try body(try slot.open(conninfo))
                pending.finish(nil)
            } catch {
                pending.finish(error)
            }
        }
        return pending
    }

    func giveBack() { release() }

    /// Work started on a side connection. The semaphore orders `finish` before what follows `wait`, which
    /// may be called again (it then returns, or throws, at once).
    final class Pending: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var error: (any Error)?
        private var waited = false

        fileprivate func finish(_ error: (any Error)?) {
            self.error = error
            done.signal()
        }

        /// Only from the one thread that started the work.
        func wait() throws {
            if !waited {
                done.wait()
                waited = true
            }
            if let error { throw error }
        }
    }
}
