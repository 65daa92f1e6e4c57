import Foundation

/// A SQLite database file in WAL mode with one writer and one reader connection. Each connection lives on
/// its own serial dispatch queue, so `sqlite3_step` never runs on Swift's cooperative pool; async callers
/// resume through continuations. WAL lets the reader run while the writer holds a transaction.
public final class SQLiteDatabase: Sendable {
    private let writer: SQLiteConnection
    private let reader: SQLiteConnection
    private let writerQueue: DispatchQueue
    private let readerQueue: DispatchQueue
    public let path: String

    /// Opens (creating if needed) the database at `path`.
    public init(path: String, busyTimeoutMilliseconds: Int32 = 5_000) throws {
        self.path = path
        writer = try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        try writer.executeScript("""
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = NORMAL;
            PRAGMA foreign_keys = ON;
            PRAGMA temp_store = MEMORY;
            PRAGMA cache_size = -16000;
            """)
        reader = try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        try reader.executeScript("PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; PRAGMA query_only = ON;")
        writerQueue = DispatchQueue(label: "herald.sqlite.writer")
        readerQueue = DispatchQueue(label: "herald.sqlite.reader")
    }

    /// Runs `body` in one write transaction on the writer's queue. A throw rolls everything back.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        let connection = writer
        return try await withCheckedThrowingContinuation { continuation in
            writerQueue.async {
                continuation.resume(with: Result { try connection.transaction { try body(connection) } })
            }
        }
    }

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
            writerQueue.async { continuation.resume(with: Result { try body(connection) }) }
        }
    }
}
