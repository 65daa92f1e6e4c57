import Foundation
import HeraldStore
internal import CSQLite
internal import CHeraldShims

/// One SQLite connection. Not thread-safe by itself: `SQLiteDatabase` confines each connection to its own
/// serial queue, which is why it is `@unchecked Sendable`. Prepared statements are cached by SQL text, so
/// every query is prepared once per connection and only its parameters change.
public final class SQLiteConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    private var statements: [StatementKey: SQLiteStatement] = [:]
    private var recentStatements = RecentStatements()
    public let path: String

    /// Set before the process's first connection, once: SQLite's memory count off
    /// (`herald_sqlite_disable_memory_status`), the page cache that skips a walk at most commits
    /// (sqlite_page_cache.c), and the VFS that writes a commit's WAL frames at once (sqlite_wal_writes.c),
    /// which every connection opens its files with.
    private static let vfs: String? = {
        _ = herald_sqlite_disable_memory_status()
        _ = herald_sqlite_install_page_cache()
        return herald_sqlite_register_vfs() == SQLITE_OK ? String(cString: herald_sqlite_vfs_name) : nil
    }()

    /// Page-cache truncations made on the calling thread that had no page to drop and were skipped
    /// (sqlite_page_cache.c). Tests watch the skip happen on their own connections.
    static var skippedPageCacheTruncations: UInt64 { UInt64(herald_sqlite_page_cache_skipped_truncations()) }

    /// For tests: while on, every truncation the page cache skips is passed on all the same, and counted in
    /// `pageCacheWrongSkips` if it dropped a page after all (a skip that was wrong). Process-wide.
    static func verifyPageCacheSkips(_ on: Bool) {
        _ = vfs   // the page cache is installed with the VFS, before any connection opens
        herald_sqlite_page_cache_verify_skips(on ? 1 : 0)
    }

    static var pageCacheWrongSkips: UInt64 { UInt64(herald_sqlite_page_cache_wrong_skips()) }

    init(path: String, busyTimeoutMilliseconds: Int32) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, Self.vfs)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: "cannot open database at \(path): \(message). Check that the directory exists and is writable.")
        }
        handle = db
        self.path = path
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        recentStatements = RecentStatements()
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    private func error(_ rc: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)), sql: sql, systemErrno: sqlite3_system_errno(handle))
    }

    private func statement(_ sql: String) throws -> SQLiteStatement {
        let bytes = RecentStatements.bytes(of: sql)
        if let bytes, let recent = recentStatements.find(bytes) { return recent }
        let prepared: SQLiteStatement
        if let cached = statements[StatementKey(sql: sql)] {
            prepared = cached
        } else {
            var stmt: OpaquePointer?
            let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
            guard rc == SQLITE_OK, let stmt else { throw error(rc, sql: sql) }
            prepared = SQLiteStatement(handle: stmt, sql: sql)
            statements[StatementKey(sql: sql)] = prepared
        }
        if let bytes { recentStatements.remember(sql, at: bytes, prepared) }
        return prepared
    }

    /// How many statements this connection has prepared and keeps (one per distinct text).
    var preparedStatements: Int { statements.count }

    /// How many times SQLite compiled this connection's cached statements again since they were prepared:
    /// after something expired them (a schema change, a flag pragma such as `foreign_keys`).
    var recompiledStatements: Int {
        statements.values.reduce(0) { $0 + Int(sqlite3_stmt_status($1.handle, SQLITE_STMTSTATUS_REPREPARE, 0)) }
    }

    /// Runs SQL without parameters that may hold several statements (schema, pragmas). Not cached.
    public func executeScript(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(message)
            throw SQLiteError(code: rc, message: text, sql: sql, systemErrno: sqlite3_system_errno(handle))
        }
    }

    /// Runs one statement with bound parameters; returns the number of rows changed.
    @discardableResult
    public func execute(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int {
        let stmt = try statement(sql)
        defer { stmt.reset() }
        let bindRC = stmt.bind(arguments)
        guard bindRC == SQLITE_OK else { throw error(bindRC, sql: sql) }
        var rc = sqlite3_step(stmt.handle)
        while rc == SQLITE_ROW { rc = sqlite3_step(stmt.handle) }
        guard rc == SQLITE_DONE else { throw error(rc, sql: sql) }
        return Int(sqlite3_changes(handle))
    }

    /// Runs one statement with `values` of `arena` bound in place as its parameters (a `.relative` value
    /// plus `base`, a value known only now, such as where a batch's row ids begin); returns the number of
    /// rows changed.
    @discardableResult
    func execute(_ sql: String, arena: SQLiteBindArena, values: Range<Int>, base: Int64 = 0) throws -> Int {
        let stmt = try statement(sql)
        return try arena.bytes.withUnsafeBufferPointer { bytes in
            defer { stmt.reset() }
            var bindRC = stmt.bind(arena.values[values], bytes: bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!, base: base)
            if bindRC == SQLITE_OK { bindRC = stmt.bindNull(after: Int32(values.count)) }
            guard bindRC == SQLITE_OK else { throw error(bindRC, sql: sql) }
            var rc = sqlite3_step(stmt.handle)
            while rc == SQLITE_ROW { rc = sqlite3_step(stmt.handle) }
            guard rc == SQLITE_DONE else { throw error(rc, sql: sql) }
            return Int(sqlite3_changes(handle))
        }
    }

    /// Inserts the first `rows` rows of `arena` (`columns` values each, in order): `batchRows` rows per statement
    /// by `batched`, the rest one by one by `single`. Each statement costs SQLite its own work besides its rows
    /// (opening cursors, a table's AUTOINCREMENT counter read and written), about as much as a row's inserts.
    func insert(rows: Int, columns: Int, of arena: SQLiteBindArena, batched: String, batchRows: Int, single: String) throws {
        precondition(batchRows > 0, "a batched statement holds at least one row")
        var next = 0
        while next < rows {
            let n = rows - next >= batchRows ? batchRows : 1
            try execute(n == 1 ? single : batched, arena: arena, values: next * columns..<(next + n) * columns)
            next += n
        }
    }

    /// Runs a query and calls `row` for each result row, in order.
    public func query(_ sql: String, _ arguments: [SQLValue] = [], row: (SQLiteRow) throws -> Void) throws {
        let stmt = try statement(sql)
        defer { stmt.reset() }
        let bindRC = stmt.bind(arguments)
        guard bindRC == SQLITE_OK else { throw error(bindRC, sql: sql) }
        while true {
            let rc = sqlite3_step(stmt.handle)
            if rc == SQLITE_ROW { try row(SQLiteRow(handle: stmt.handle)); continue }
            if rc == SQLITE_DONE { return }
            throw error(rc, sql: sql)
        }
    }

    /// Maps every row of a query.
    public func all<T>(_ sql: String, _ arguments: [SQLValue] = [], _ map: (SQLiteRow) throws -> T) throws -> [T] {
        var result: [T] = []
        try query(sql, arguments) { result.append(try map($0)) }
        return result
    }

    /// Maps the first row of a query, or nil when there is none.
    public func first<T>(_ sql: String, _ arguments: [SQLValue] = [], _ map: (SQLiteRow) throws -> T) throws -> T? {
        var result: T?
        try query(sql, arguments) { if result == nil { result = try map($0) } }
        return result
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Installs (or, with nil, removes) the hook SQLite calls after each commit with the number of frames
    /// in the WAL. Installing one replaces SQLite's automatic checkpoint, which is itself such a hook.
    func setWALHook(context: UnsafeMutableRawPointer?,
                    _ hook: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32)?) {
        sqlite3_wal_hook(handle, hook, context)
    }

    /// How far a checkpoint goes: `passive` copies what it can without waiting for anyone; `truncate` also
    /// waits (up to the busy timeout) for the writer and for readers on the WAL, then empties the WAL file.
    enum CheckpointMode { case passive, truncate }

    /// Runs a checkpoint of the main database; returns the frames in the WAL and how many of them are now
    /// in the database file. Throws `SQLITE_BUSY` when a `truncate` could not get the locks it waits for.
    @discardableResult
    func checkpoint(_ mode: CheckpointMode) throws -> (walFrames: Int, checkpointed: Int) {
        var log: Int32 = 0
        var done: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, mode == .passive ? SQLITE_CHECKPOINT_PASSIVE : SQLITE_CHECKPOINT_TRUNCATE,
                                           &log, &done)
        guard rc == SQLITE_OK else { throw error(rc, sql: nil) }
        return (Int(log), Int(done))
    }

    /// Runs `body` inside `BEGIN IMMEDIATE ... COMMIT`, rolling back if it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }
}

/// The statements found last, by where their text's bytes are. A `String` of more than 15 bytes keeps them in
/// storage of its own (in the binary, for a literal), which its copies share, so a statement's constant is found
/// again by comparing one pointer: through the dictionary, the hash of 64 bytes and the comparison of the whole
/// text cost ~1,100 instructions, three or four times a registration on the writer (docs/performance.md, "Round
/// 21"). Each entry keeps its text, so that its storage is not freed and given to another text meanwhile.
private struct RecentStatements {
    private static let capacity = 16
    private var entries: [(text: String, bytes: UnsafeRawPointer, statement: SQLiteStatement)] = []
    private var next = 0

    /// Where `sql`'s bytes are, when they have storage of their own: a shorter string holds them in its value,
    /// and a string that is not contiguous UTF-8 has none.
    static func bytes(of sql: String) -> UnsafeRawPointer? {
        guard sql.utf8.count > 15 else { return nil }
        return sql.utf8.withContiguousStorageIfAvailable { $0.baseAddress.map(UnsafeRawPointer.init) } ?? nil
    }

    func find(_ bytes: UnsafeRawPointer) -> SQLiteStatement? {
        for entry in entries where entry.bytes == bytes { return entry.statement }
        return nil
    }

    /// Replaces the oldest entry once all are taken.
    mutating func remember(_ text: String, at bytes: UnsafeRawPointer, _ statement: SQLiteStatement) {
        guard entries.count == Self.capacity else { return entries.append((text, bytes, statement)) }
        entries[next] = (text, bytes, statement)
        next = (next + 1) % Self.capacity
    }
}

/// The statement cache's key. Swift hashes every byte of a `String`, and a statement naming all of a table's
/// columns is half a kilobyte, looked up on every call: the key hashes the text's length and its last 64
/// bytes (where statements on the same table differ: their conditions). Equality compares all the bytes
/// (not `String`'s canonical equivalence, which would not agree with a hash of bytes).
private struct StatementKey: Hashable {
    let sql: String

    static func == (a: StatementKey, b: StatementKey) -> Bool {
        guard a.sql.utf8.count == b.sql.utf8.count else { return false }
        let compared = a.sql.utf8.withContiguousStorageIfAvailable { x in
            b.sql.utf8.withContiguousStorageIfAvailable { y in x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
        return (compared ?? nil) ?? a.sql.utf8.elementsEqual(b.sql.utf8)
    }

    func hash(into hasher: inout Hasher) {
        let utf8 = sql.utf8
        hasher.combine(utf8.count)
        if utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: $0.suffix(64)))) }) == nil {
            for byte in utf8.suffix(64) { hasher.combine(byte) }
        }
    }
}
