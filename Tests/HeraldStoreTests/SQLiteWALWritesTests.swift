import Foundation
import Testing
@testable import HeraldSQLite

/// Connections write the WAL through Herald's VFS, which gathers a commit's frames into one write
/// (sqlite_wal_writes.c). What it must never do is hold back a committed byte: each test copies the files
/// as they are when a commit returns, as a killed process would leave them, and opens the copy, which
/// recovers from the WAL only frames whose checksums chain up to a commit frame.
@Suite struct SQLiteWALWritesTests {
    static func makeDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-walw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func open(_ path: String) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1_000)
        try connection.executeScript("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;")
        return connection
    }

    /// The database and its WAL as they are on disk now, copied beside them, opened on their own.
    static func copyAsAKillLeavesIt(_ path: String, _ name: String) throws -> SQLiteConnection {
        let copy = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        return try SQLiteConnection(path: copy, busyTimeoutMilliseconds: 1_000)
    }

    static func rows(_ connection: SQLiteConnection) throws -> Int {
        try connection.first("SELECT count(*) FROM t") { $0.int(0) } ?? -1
    }

    @Test func everyCommitIsInTheFilesWhenItReturns() throws {
        let path = try Self.makeDirectory().appendingPathComponent("herald.sqlite").path
        let writer = try Self.open(path)
        try writer.executeScript("CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)")
        for commit in 1...20 {
            // One to forty pages a commit: one gathered write, or several past the VFS's 128 KiB.
            try writer.transaction {
                for _ in 0..<(commit * 2) { try writer.execute("INSERT INTO t (b) VALUES (randomblob(2000))") }
            }
            let copy = try Self.copyAsAKillLeavesIt(path, "copy-\(commit).sqlite")
            #expect(try Self.rows(copy) == (1...commit).reduce(0) { $0 + $1 * 2 }, "after commit \(commit)")
        }
    }

    @Test func aTransactionLargerThanThePageCacheIsRecoveredWhole() throws {
        // With a cache of a few pages SQLite spills pages to the WAL before the commit, overwrites some of
        // them in place, and at the commit reads its frames back to rewrite their headers' checksums.
        let path = try Self.makeDirectory().appendingPathComponent("herald.sqlite").path
        let writer = try Self.open(path)
        try writer.executeScript("PRAGMA cache_size = 8; CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, b BLOB)")
        try writer.transaction {
            for i in 0..<2_000 { try writer.execute("INSERT INTO t (n, b) VALUES (?, randomblob(300))", [.int(i)]) }
            try writer.execute("UPDATE t SET n = n + 1 WHERE id % 7 = 0")
            for i in 2_000..<2_500 { try writer.execute("INSERT INTO t (n, b) VALUES (?, randomblob(300))", [.int(i)]) }
        }
        let copy = try Self.copyAsAKillLeavesIt(path, "copy.sqlite")
        #expect(try Self.rows(copy) == 2_500)
        let sum = try copy.first("SELECT sum(n) FROM t") { $0.int(0) }
        #expect(sum == (0..<2_500).reduce(0, +) + 2_000 / 7)   // ids 7, 14, ... 1995
        #expect(try copy.first("PRAGMA integrity_check") { $0.text(0) } == "ok")
    }
}
