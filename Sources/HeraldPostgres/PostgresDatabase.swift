import Foundation
import Synchronization
import HeraldStore

/// A small pool of libpq connections. Each connection has its own serial dispatch queue, and every libpq
/// call (which blocks on the network) runs there, never on Swift's cooperative pool; async callers wait
/// for a free connection and resume through continuations, as with `SQLiteDatabase`.
final class PostgresDatabase: Sendable {
    /// A pooled connection and the queue it runs on. `connection` is only touched on `queue` (it is nil until
    /// first use), which is why the slot is `@unchecked Sendable`.
    private final class Slot: @unchecked Sendable {
        let queue: DispatchQueue
        var connection: PostgresConnection?
        init(index: Int, connection: PostgresConnection?) {
            queue = DispatchQueue(label: "herald.postgres.\(index)")
            self.connection = connection
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
                continuation.resume(with: Result {
                    let connection: PostgresConnection
                    if let open = slot.connection {
                        connection = open
                        try connection.ensureOpen()
                    } else {
                        connection = try PostgresConnection(conninfo: conninfo)
                        slot.connection = connection
                    }
                    return try body(connection)
                })
            }
        }
    }

    /// Runs `body` in one read-committed write transaction. A transaction that lost a serialization race
    /// or a deadlock runs again (a few times); one that failed for lack of space throws
    /// `StoreError.storageFull`.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        do {
            let result = try await withConnection { connection in
                var attempt = 0
                while true {
                    do {
                        return try connection.transaction { try body(connection) }
                    } catch let error as PostgresError where error.isRetryable && attempt < 5 {
                        attempt += 1
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
