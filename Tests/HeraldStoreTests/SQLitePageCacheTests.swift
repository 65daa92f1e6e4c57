import Foundation
import Testing
import HeraldTestSupport
@testable import HeraldSQLite

/// Connections use SQLite's page cache with one change (sqlite_page_cache.c): a truncation that has no page
/// to drop, as at the end of most commits, is not passed on, so the cache is not walked for nothing. What it
/// must never do is keep a page that a truncation should have dropped: a reader's cache goes stale at every
/// commit of the writer, and a file shrunk by `VACUUM` leaves the writer's cache with pages past its end.
@Suite struct SQLitePageCacheTests {
    static func open(_ path: String, cachePages: Int) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1_000)
        try connection.executeScript("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = \(cachePages);")
        return connection
    }

    static func databasePath() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-pcache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("herald.sqlite").path
    }

    /// Random keys split index pages, and a split whose new pages come out of order parks one at SQLite's
    /// pending-byte page: each commit's truncation then started a walk of the whole cache.
    @Test func commitsThatSplitIndexPagesSkipTheirTruncation() throws {
        let writer = try Self.open(try Self.databasePath(), cachePages: 1_000)
        try writer.executeScript("CREATE TABLE t (id INTEGER PRIMARY KEY, token TEXT NOT NULL); CREATE INDEX t_token ON t(token)")
        var random = SystemRandomNumberGenerator()
        let before = SQLiteConnection.skippedPageCacheTruncations
        for _ in 0..<100 {
            try writer.transaction {
                for _ in 0..<20 {
                    let token = (0..<4).map { _ in String(format: "%016llx", random.next() as UInt64) }.joined()
                    try writer.execute("INSERT INTO t (token) VALUES (?)", [.text(token)])
                }
            }
        }
        let after = SQLiteConnection.skippedPageCacheTruncations
        // Each commit ends with a truncation past the file's end, which finds nothing (the counts are this
        // thread's, where the connection ran).
        #expect(after - before >= 100)
        #expect(try writer.first("SELECT count(*) FROM t") { $0.int(0) } == 2_000)
        #expect(try writer.first("PRAGMA integrity_check") { $0.text(0) } == "ok")
    }

    /// Transactions that grow the file and commit or roll back at random, with a small cache (pages evicted and
    /// read again), a reader between them, and now and then most rows deleted and the file shrunk (`VACUUM`,
    /// after which the writer's cache holds pages past the file's end that the truncation must drop). After
    /// each, the writer and the reader read exactly what was committed. Pages left past the file's end would
    /// rarely show in a query, so every skipped truncation is also passed on and must drop nothing.
    @Test func readersRollbacksAndShrinkingReadOnlyWhatWasCommitted() throws {
        SQLiteConnection.verifyPageCacheSkips(true)
        defer { SQLiteConnection.verifyPageCacheSkips(false) }
        let wrongSkipsBefore = SQLiteConnection.pageCacheWrongSkips
        let skippedBefore = SQLiteConnection.skippedPageCacheTruncations
        let path = try Self.databasePath()
        let writer = try Self.open(path, cachePages: 30)
        try writer.executeScript("CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER NOT NULL, b BLOB) WITHOUT ROWID; CREATE INDEX t_n ON t(n)")
        let reader = try Self.open(path, cachePages: 30)
        var generator = SeededRandom(seed: 0x5eed)
        var committed: [String: Int] = [:]
        for round in 0..<150 {
            var pending = committed
            try writer.execute("BEGIN")
            for _ in 0..<Int.random(in: 1...60, using: &generator) {
                let key = String(format: "%016llx", generator.next())
                let n = Int.random(in: 0..<1_000_000, using: &generator)
                try writer.execute("INSERT INTO t (k, n, b) VALUES (?, ?, randomblob(300))", [.text(key), .int(n)])
                pending[key] = n
            }
            if let victim = pending.keys.min(), Bool.random(using: &generator) {
                try writer.execute("DELETE FROM t WHERE k = ?", [.text(victim)])
                pending[victim] = nil
            }
            let commits = Int.random(in: 0..<3, using: &generator) > 0
            try writer.execute(commits ? "COMMIT" : "ROLLBACK")
            if commits { committed = pending }
            if round % 30 == 29 {
                let kept = committed.keys.sorted().prefix(committed.count / 5)
                try writer.execute("DELETE FROM t WHERE k > ?", [.text(kept.last ?? "")])
                let keptKeys = Set(kept)
                committed = committed.filter { keptKeys.contains($0.key) }
                try writer.execute("VACUUM")
            }
            let expected = [committed.count, committed.values.reduce(0, +)]
            for (name, connection) in [("writer", writer), ("reader", reader)] {
                let seen = try connection.transaction {
                    try connection.first("SELECT count(*), coalesce(sum(n), 0) FROM t") { [$0.int(0), $0.int(1)] }
                }
                #expect(seen == expected, "\(name) after round \(round) (\(commits ? "committed" : "rolled back"))")
            }
        }
        #expect(try writer.first("PRAGMA integrity_check") { $0.text(0) } == "ok")
        #expect(SQLiteConnection.skippedPageCacheTruncations > skippedBefore)
        #expect(SQLiteConnection.pageCacheWrongSkips == wrongSkipsBefore)
    }
}
