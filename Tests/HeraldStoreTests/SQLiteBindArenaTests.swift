import Foundation
import Testing
@testable import HeraldSQLite
import HeraldStore

/// Parameters bound in place from an arena (the import's rows, encoded ahead) must store exactly what
/// `SQLiteConnection.execute(_:_:)`, which hands SQLite copies, stores: every kind of value, texts that are
/// empty, not ASCII or hold a NUL byte, and a `.relative` value (bound plus the execution's base).
@Suite struct SQLiteBindArenaTests {
    @Test func valuesBoundInPlaceReadBackAsBoundByCopy() async throws {
        let (db, _) = try await WALCheckpointTests.makeDatabase()
        let rows: [[SQLValue]] = [
            [.text("plain"), .integer(-7), .real(1.5), .null],
            [.text(""), .integer(Int64.max), .real(-0.25), .text("日本語 ✓")],
            [.text("a NUL \u{0} inside"), .null, .null, .text(String(repeating: "x", count: 10_000))],
        ]
        var arena = SQLiteBindArena()
        for row in rows {
            for value in row { arena.append(value) }
            arena.append(relative: 100)
        }
        let (arenaRows, copiedRows) = try await db.write { [arena] c in
            try c.execute("CREATE TABLE v (a, b, c, d, n INTEGER, copied INTEGER)")
            for (i, row) in rows.enumerated() {
                try c.execute("INSERT INTO v VALUES (?, ?, ?, ?, ?, 0)", arena: arena, values: 5 * i..<5 * i + 5, base: Int64(i))
                try c.execute("INSERT INTO v VALUES (?, ?, ?, ?, ?, 1)", row + [.integer(Int64(100 + i))])
            }
            func read(_ copied: Int) throws -> [[String]] {
                try c.all("SELECT quote(a), quote(b), quote(c), quote(d), n, length(CAST(a AS BLOB)) FROM v WHERE copied = ? ORDER BY n",
                          [.integer(Int64(copied))]) { r in (0..<6).map { r.text($0) } }
            }
            return (try read(0), try read(1))
        }
        #expect(arenaRows.count == 3)
        #expect(arenaRows == copiedRows)
        #expect(arenaRows[2][5] == "\("a NUL \u{0} inside".utf8.count)", "the text after the NUL is stored too")
        #expect(arenaRows.map { $0[4] } == ["100", "101", "102"], "the relative value plus each execution's base")
    }

    /// Statements are cached and not cleared between executions: a parameter an execution leaves out is
    /// NULL, never the value of the execution before (nor, from an arena, a text whose bytes are gone).
    @Test func aParameterLeftOutIsNullNotTheValueOfTheExecutionBefore() async throws {
        let (db, _) = try await WALCheckpointTests.makeDatabase()
        var arena = SQLiteBindArena()
        for value: SQLValue in [.integer(1), .text("from the arena")] { arena.append(value) }
        arena.append(relative: 9)
        arena.append(.integer(3))
        let rows = try await db.write { [arena] c in
            try c.execute("CREATE TABLE p (n INTEGER, t TEXT, u TEXT)")
            let insert = "INSERT INTO p VALUES (?, ?, ?)"
            try c.execute(insert, arena: arena, values: 0..<3, base: 90)
            try c.execute(insert, [.integer(2), .text("copied"), .text("u")])
            try c.execute(insert, [.integer(4)])
            try c.execute(insert, arena: arena, values: 3..<4)
            return try c.all("SELECT n, quote(t), quote(u) FROM p ORDER BY rowid") { r in [r.text(0), r.text(1), r.text(2)] }
        }
        #expect(rows == [["1", "'from the arena'", "'99'"], ["2", "'copied'", "'u'"], ["4", "NULL", "NULL"], ["3", "NULL", "NULL"]])
    }
}
