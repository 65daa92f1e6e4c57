import Foundation
import HeraldStore
import Synchronization

/// A SQLite database file in WAL mode with one writer and one reader connection. Each connection lives on
/// its own serial dispatch queue, so `sqlite3_step` never runs on Swift's cooperative pool; async callers
/// resume through continuations. WAL lets the reader run while the writer holds a transaction. A third
/// connection checkpoints the WAL on a queue of its own, so no commit waits for the bulk of a checkpoint.
public final class SQLiteDatabase: Sendable {
    private let writer: SQLiteConnection
    private let reader: SQLiteConnection
    let checkpointer: WALCheckpointer
    private let writerQueue: DispatchQueue
    private let readerQueue: DispatchQueue
    public let path: String
    /// The storage-full failure of the last write, kept until a write that needs fresh space succeeds.
    private let storageFailure = Mutex<StoreError?>(nil)
    private let storageChanged: @Sendable (StoreError?) -> Void

    /// Opens (creating if needed) the database at `path`. `storageChanged` hears when writes start failing
    /// for lack of space (with the failure) and when they succeed again (nil), once per change.
    public convenience init(path: String, busyTimeoutMilliseconds: Int32 = 5_000,
                            storageChanged: @escaping @Sendable (StoreError?) -> Void = { _ in }) throws {
        try self.init(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, checkpoints: .init(),
                      storageChanged: storageChanged)
    }

    /// As above, with the checkpoint thresholds given (tests use small ones).
    init(path: String, busyTimeoutMilliseconds: Int32 = 5_000, checkpoints: WALCheckpointer.Policy,
         storageChanged: @escaping @Sendable (StoreError?) -> Void = { _ in }) throws {
        self.path = path
        self.storageChanged = storageChanged
        writer = try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        try writer.executeScript("""
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = NORMAL;
            PRAGMA foreign_keys = ON;
            PRAGMA temp_store = MEMORY;
            PRAGMA cache_size = -\(Self.writerCacheKiB);
            """)
        checkpointer = try WALCheckpointer(path: path, policy: checkpoints)
        try checkpointer.attach(to: writer)
        reader = try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        try reader.executeScript("PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; PRAGMA query_only = ON;")
        writerQueue = DispatchQueue(label: "herald.sqlite.writer")
        readerQueue = DispatchQueue(label: "herald.sqlite.reader")
    }

    /// The writer's page cache, in KiB. It was shrunk from 16 MiB when every commit after a B-tree split walked
    /// the whole cache (docs/performance.md, "Round 8"; the walk is now skipped, sqlite_page_cache.c). It stays
    /// small for memory: 64 MiB made registrations on a large store a few percent faster, but would take the
    /// large mode's peak past its 128 MiB target ("Round 19"), and neither the import nor registrations read
    /// measurably more at 4 MiB than at 16.
    static let writerCacheKiB = 4_000

    /// Nothing runs on the queues any more (each job holds the database), so the writer is idle: its hook
    /// goes before the checkpointer it points at, and the final checkpoint empties the WAL.
    deinit {
        checkpointer.detach(from: writer)
        checkpointer.close()
    }

    /// Runs `body` in one write transaction on the writer's queue. A throw rolls everything back; a write
    /// that failed for lack of space throws `StoreError.storageFull`.
    ///
    /// `selfCheckedRows`: how many rows `body` writes whose every reference it has checked itself (an import
    /// batch checks its app once instead of SQLite looking it up for every row). From `uncheckedWriteRows`
    /// on, SQLite's foreign key checks are off for this transaction, and so are cascades on delete: such a
    /// body must delete nothing that others reference. The pragma is a no-op inside a transaction, hence set
    /// around it.
    @discardableResult
    public func write<T: Sendable>(selfCheckedRows: Int = 0,
                                   _ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        let connection = writer
        let checkingForeignKeys = selfCheckedRows < Self.uncheckedWriteRows
        return try await withCheckedThrowingContinuation { continuation in
            writerQueue.async { [self] in
                continuation.resume(with: Result {
                    try tracked(connection) {
                        guard !checkingForeignKeys else { return try connection.transaction { try body(connection) } }
                        try connection.execute("PRAGMA foreign_keys = OFF")
                        defer { _ = try? connection.execute("PRAGMA foreign_keys = ON") }
                        return try connection.transaction { try body(connection) }
                    }
                })
            }
        }
    }

    /// The fewest self-checked rows for which a write turns SQLite's foreign key checks off. Turning them off
    /// and on again expires every statement the writer has prepared (SQLite compiles the checks into each),
    /// so each is compiled again at its next use. A one-device push's delivery page did that, and the next
    /// push then compiled its insert on the way to its answer: 1,142 us from the API to the device at p50
    /// against 913 us without (row 6, docs/performance.md "Round 10"). Skipping the checks saves well under
    /// a microsecond a row, so it is worth that only for a page or a batch of some size.
    static let uncheckedWriteRows = 256

    /// Runs `body` on the reader's queue inside a read transaction (a consistent snapshot).
    public func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        let connection = reader
        return try await withCheckedThrowingContinuation { continuation in
            readerQueue.async {
                continuation.resume(with: Result {
                    try connection.execute("BEGIN")
                    defer { _ = try? connection.execute("COMMIT") }
                    return try body(connection)
                })
            }
        }
    }

    /// Runs `body` on the writer's queue without opening a transaction (migrations manage their own).
    public func withWriter<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        let connection = writer
        return try await withCheckedThrowingContinuation { continuation in
            writerQueue.async { [self] in continuation.resume(with: Result { try tracked(connection) { try body(connection) } }) }
        }
    }

    /// Puts `job` on the writer's queue behind the jobs already there, without waiting for it (the serial
    /// lane of `GroupCommit`, which answers its callers itself).
    func enqueueOnWriter(_ job: @escaping @Sendable () -> Void) {
        writerQueue.async(execute: job)
    }

    /// Runs `body` with the writer, as `withWriter` does; only on the writer's queue (a job of `enqueueOnWriter`).
    func trackedWrite<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        dispatchPrecondition(condition: .onQueue(writerQueue))
        let connection = writer
        return try tracked(connection) { try body(connection) }
    }

    /// Nil while writes succeed. Once one failed for lack of space, that failure, until a probe write that
    /// needs fresh space succeeds: a small write that fits in pages already allocated proves nothing.
    /// Costs nothing while no write has failed.
    public func checkStorage() async -> StoreError? {
        guard storageFailure.withLock({ $0 }) != nil else { return nil }
        let connection = writer
        return await withCheckedContinuation { continuation in
            writerQueue.async { [self] in
                probe(connection)
                continuation.resume(returning: storageFailure.withLock { $0 })
            }
        }
    }

    /// Maps a write that failed for lack of space to `StoreError.storageFull` and remembers it; a write
    /// that succeeds while it is remembered checks whether space came back.
    private func tracked<T>(_ connection: SQLiteConnection, _ work: () throws -> T) throws -> T {
        let result: T
        do { result = try work() } catch let error as SQLiteError where error.isStorageFull {
            let failure = StoreError.storageFull("\(error.message) (database \(path))")
            let first = storageFailure.withLock { s in defer { s = failure }; return s == nil }
            if first { storageChanged(failure) }
            throw failure
        }
        if storageFailure.withLock({ $0 }) != nil { probe(connection) }
        return result
    }

    /// Writes and drops 64 KB in one committed transaction (new pages in the file and frames in the WAL),
    /// which succeeds only when the store has room again. Runs only while a storage failure is remembered.
    private func probe(_ connection: SQLiteConnection) {
        do {
            try connection.transaction {
                try connection.executeScript("""
                    CREATE TABLE herald_storage_probe (b BLOB);
                    INSERT INTO herald_storage_probe VALUES (zeroblob(65536));
                    DROP TABLE herald_storage_probe;
                    """)
            }
        } catch {
            return
        }
        let recovered = storageFailure.withLock { s in defer { s = nil }; return s != nil }
        if recovered { storageChanged(nil) }
    }
}
