import Foundation
import Testing
@testable import HeraldSQLite

/// A connection finds a statement it prepared before by its text: first among the statements it used last, by
/// where the text's bytes are, then by the text itself. Whatever string holds a text, the statement run is the
/// one that text names.
@Suite struct SQLiteStatementCacheTests {
    static func open() throws -> SQLiteConnection {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-stmt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return try SQLiteConnection(path: dir.appendingPathComponent("herald.sqlite").path, busyTimeoutMilliseconds: 1_000)
    }

    /// A text prepared before, run again from a copy with storage of its own, is found among the recent
    /// statements by that storage. The copy is then dropped, and a new text of the same length, which the
    /// allocator tends to give the freed storage, must run its own statement, not the copy's.
    @Test func aNewTextInTheStorageOfAnOldOneRunsItsOwnStatement() throws {
        let db = try Self.open()
        func text(_ value: Int) -> String { "SELECT \(value) AS the_value_this_text_names" }
        for i in 0..<300 {
            let value = 1_000_000 + i
            #expect(try db.first(text(value)) { $0.int(0) } == value)
            #expect(try db.first(text(value)) { $0.int(0) } == value)
            #expect(try db.first(text(value + 1_000_000)) { $0.int(0) } == value + 1_000_000)
        }
    }

    /// The same statement from a literal, from a copy built at run time (other storage), and after more
    /// statements than the recent ones hold: the same results, and it is prepared once.
    @Test func oneTextFromAnyStringIsOneStatement() throws {
        let db = try Self.open()
        try db.executeScript("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        let insert = "INSERT INTO t (id, name) VALUES (?, ?)"
        try db.execute(insert, [.integer(1), .text("one")])
        try db.execute(String(insert.utf8.map { Character(Unicode.Scalar($0)) }), [.integer(2), .text("two")])
        for i in 0..<40 { _ = try db.first("SELECT \(i) + count(*) FROM t") { $0.int(0) } }
        try db.execute("INSERT INTO t (id, name) VALUES (?, ?)", [.integer(3), .text("three")])
        #expect(try db.all("SELECT name FROM t ORDER BY id") { $0.text(0) } == ["one", "two", "three"])
        #expect(db.preparedStatements == 42)
    }
}
