import Foundation
import HeraldStore
internal import CPostgres

/// A failure reported by PostgreSQL or libpq. The text is the server's (or libpq's) own message, never the
/// connection string: that may hold a password.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    /// The five-character SQLSTATE (`23505` unique violation, `53100` disk full, ...); nil for connection failures.
    public var sqlState: String?
    public var message: String
    public var sql: String?

    public var description: String {
        "PostgreSQL error" + (sqlState.map { " \($0)" } ?? "") + ": \(message)" + (sql.map { " (in: \($0.prefix(120)))" } ?? "")
    }

    /// The server could not write for lack of space: disk full (53100) or out of disk quota class (53xxx
    /// other than memory and connections).
    var isStorageFull: Bool { sqlState == "53100" }
    /// Another transaction changed what this one relied on; running the whole transaction again is safe.
    var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }
    /// The server cannot be reached or dropped the connection: libpq's own failures (no SQLSTATE), class 08
    /// (connection exception), and the server shutting down or restarting (57P01-57P03).
    var isConnectionFailure: Bool {
        guard let sqlState else { return true }
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }
}

/// One libpq connection. Not thread-safe by itself: `PostgresDatabase` lends it to one caller at a time and
/// runs every call on the connection's own serial queue, which is why it is `@unchecked Sendable`.
/// Statements are prepared once per connection (named by a counter) and then only their parameters change.
final class PostgresConnection: @unchecked Sendable {
    private var handle: OpaquePointer?
    private var prepared: [String: String] = [:]
    private let conninfo: String
    /// The `BEGIN` of a transaction not sent yet: it goes with the transaction's first statement, in one
    /// round trip (`transaction`).
    private var deferredBegin: String?
    /// The transaction's `COMMIT` went with its last statements (`pipeline(_:committing:)`): it is over, and
    /// `transaction` sends no `COMMIT` of its own.
    private var committed = false
    /// Round trips for statements (pipelines, single statements, scripts; not the one-time `PREPARE` of each):
    /// tests count a group's.
    private(set) var roundTrips = 0

    /// Connects at once, so a wrong URL or an unreachable server fails when the store opens.
    init(conninfo: String) throws {
        self.conninfo = conninfo
        try connect()
    }

    deinit { if let handle { PQfinish(handle) } }

    private func connect() throws {
        if let handle { PQfinish(handle) }
        prepared.removeAll()
        let conn = PQconnectdb(conninfo)
        handle = conn
        guard let conn, PQstatus(conn) == CONNECTION_OK else {
            let message = conn.map { Self.trimmed(PQerrorMessage($0)) } ?? "out of memory"
            if let conn { PQfinish(conn) }
            handle = nil
            throw PostgresError(sqlState: nil, message: "cannot connect: \(message)")
        }
        // Notices (`... already exists, skipping`) would go to stderr by default: they are not errors.
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
    }

    /// Reconnects when the server closed the connection (a restart, an idle timeout): a pooled connection
    /// should not fail its next caller for what happened while it sat idle.
    func ensureOpen() throws {
        // Reading what the server sent while the connection sat idle (nothing, or its goodbye when it shut
        // down) tells a live connection from one closed at the other end, without a round trip.
        if let handle, PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK { return }
        try connect()
    }

    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    private static func trimmed(_ p: UnsafePointer<CChar>?) -> String {
        guard let p else { return "" }
        return String(cString: p).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func failure(_ result: OpaquePointer?, sql: String?) -> PostgresError {
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        var message = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "M"))) }.map { String(cString: $0) } ?? ""
        if message.isEmpty { message = Self.trimmed(handle.flatMap { PQerrorMessage($0) }) }
        return PostgresError(sqlState: state, message: message, sql: sql)
    }

    func live() throws -> OpaquePointer {
        guard let handle else { throw PostgresError(sqlState: nil, message: "connection is closed") }
        return handle
    }

    /// Runs SQL without parameters that may hold several statements (schema). Not prepared.
    func executeScript(_ sql: String) throws {
        try refuseAfterCommit(sql)
        try sendDeferredBegin()
        let conn = try live()
        roundTrips += 1
        let result = PQexec(conn, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY else {
            throw failure(result, sql: sql)
        }
    }

    private func statementName(_ sql: String, _ conn: OpaquePointer) throws -> String {
        if let name = prepared[sql] { return name }
        let name = "h\(prepared.count + 1)"
        let result = PQprepare(conn, name, sql, 0, nil)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw failure(result, sql: sql) }
        prepared[sql] = name
        return name
    }

    /// One statement and its values, for `pipeline`.
    struct Statement {
        let sql: String
        let arguments: [SQLValue]
        init(_ sql: String, _ arguments: [SQLValue] = []) {
            self.sql = sql
            self.arguments = arguments
        }
    }

    /// Runs one prepared statement with every value bound (text format; blobs binary) and hands back the
    /// result. Values never become part of the SQL text. The first statement of a transaction carries its
    /// `BEGIN` along (`pipeline`).
    private func run(_ sql: String, _ arguments: [SQLValue]) throws -> PostgresResult {
        try refuseAfterCommit(sql)
        if deferredBegin != nil { return try pipeline([Statement(sql, arguments)])[0] }
        let conn = try live()
        let name = try statementName(sql, conn)
        roundTrips += 1
        let result = Self.withBound(arguments) { count, values, lengths, formats in
            PQexecPrepared(conn, name, count, values, lengths, formats, 0)
        }
        return try checked(result, sql: sql)
    }

    /// Runs prepared statements sent together, in one round trip (libpq's pipeline mode), in order; with
    /// the transaction's deferred `BEGIN` ahead of them if there is one. Each round trip costs both ends
    /// more CPU than a small statement's work (docs/performance.md, "Round 16"). A statement that fails
    /// throws once all results are read; the ones after it did not run.
    ///
    /// `committing`: the transaction's `COMMIT` goes last, in the same round trip, for statements known to be
    /// the transaction's last (a group `RegistrationBatch` wrote whole): the transaction is over when this
    /// returns, and another statement in it throws `StatementAfterCommit`. Should a statement fail, the
    /// `COMMIT` does not run either and `transaction` rolls back as usual. Should the connection fail while
    /// the results are read, whether the transaction committed is unknown, as when a lone `COMMIT`'s answer
    /// is lost; the window is now the statements' round trip too (the callers' 503 may hide a stored write,
    /// which a registration's retry finds and updates).
    func pipeline(_ statements: [Statement], committing: Bool = false) throws -> [PostgresResult] {
        try refuseAfterCommit(statements.first?.sql)
        let conn = try live()
        let names = try statements.map { try statementName($0.sql, conn) }
        let begin = deferredBegin
        deferredBegin = nil
        guard PQenterPipelineMode(conn) == 1 else { throw failure(nil, sql: statements.first?.sql) }
        // A connection that cannot leave pipeline mode would misread every later result: it is closed
        // instead (and opened again on its next use).
        defer { if handle != nil, PQexitPipelineMode(conn) != 1 { close() } }
        var sent = true
        if let begin { sent = PQsendQueryParams(conn, begin, 0, nil, nil, nil, nil, 0) == 1 }
        for (statement, name) in zip(statements, names) where sent {
            sent = Self.withBound(statement.arguments) { count, values, lengths, formats in
                PQsendQueryPrepared(conn, name, count, values, lengths, formats, 0)
            } == 1
        }
        if committing && sent { sent = PQsendQueryParams(conn, "COMMIT", 0, nil, nil, nil, nil, 0) == 1 }
        roundTrips += 1
        guard sent, PQpipelineSync(conn) == 1 else {
            // Not all sent: the connection is in no state to go on (it is opened again on its next use).
            let error = failure(nil, sql: statements.first?.sql)
            close()
            throw PostgresError(sqlState: nil, message: error.message, sql: error.sql)
        }
        // One result per query, each followed by a null; then the sync's own.
        var results: [PostgresResult] = []
        var error: PostgresError?
        for index in (begin == nil ? 0 : -1)..<(statements.count + (committing ? 1 : 0)) {
            let sql = index < 0 ? begin : index < statements.count ? statements[index].sql : "COMMIT"
            let result = PQgetResult(conn)
            while let extra = PQgetResult(conn) { PQclear(extra) }
            do {
                let checked = try checked(result, sql: sql)
                if index >= 0 && index < statements.count { results.append(checked) }
            } catch let failed as PostgresError {
                if error == nil { error = failed }
            }
        }
        let sync = PQgetResult(conn)
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        guard synced else {
            close()
            throw error ?? PostgresError(sqlState: nil, message: "the pipeline ended without its sync; the connection was closed",
                                         sql: statements.first?.sql)
        }
        if let error { throw error }
        if committing { committed = true }
        return results
    }

    /// A statement after the transaction's `COMMIT` went with its last statements would run outside it: a
    /// bug in the caller, refused (that caller's write fails) rather than run or trapped (the whole server).
    private func refuseAfterCommit(_ sql: String?) throws {
        guard committed else { return }
        throw StatementAfterCommit(sql: sql)
    }

    /// The result of a statement that ran, or its failure (the result cleared).
    private func checked(_ result: OpaquePointer?, sql: String?) throws -> PostgresResult {
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK, let result else {
            defer { PQclear(result) }
            throw failure(result, sql: sql)
        }
        return PostgresResult(handle: result)
    }

    /// Calls `body` with `arguments` as libpq's parameter arrays: all the bytes in one buffer (text
    /// NUL-terminated), and pointers into it.
    private static func withBound<R>(_ arguments: [SQLValue],
                                     _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R) -> R {
        var bytes: [UInt8] = []
        var offsets: [Int?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for value in arguments {
            switch value {
            case .null:
                offsets.append(nil); lengths.append(0); formats.append(0)
            case .blob(let b):
                offsets.append(bytes.count); bytes += b; lengths.append(Int32(b.count)); formats.append(1)
            default:
                let text: String
                switch value {
                case .integer(let v): text = String(v)
                case .real(let v): text = String(v)
                case .text(let v): text = v
                default: text = ""
                }
                offsets.append(bytes.count); bytes += text.utf8; bytes.append(0)
                lengths.append(0); formats.append(0)
            }
        }
        if bytes.isEmpty { bytes.append(0) }
        return bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let pointers: [UnsafePointer<CChar>?] = offsets.map { $0.map { base + $0 } }
            return pointers.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { lens in
                    formats.withUnsafeBufferPointer { fmts in
                        body(Int32(arguments.count), values.baseAddress, lens.baseAddress, fmts.baseAddress)
                    }
                }
            }
        }
    }

    /// Runs one statement; returns the number of rows it changed (or returned).
    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int {
        let result = try run(sql, arguments)
        return result.affectedRows
    }

    /// Maps every row of a query, in order.
    func all<T>(_ sql: String, _ arguments: [SQLValue] = [], _ map: (PostgresRow) throws -> T) throws -> [T] {
        try run(sql, arguments).rows(map)
    }

    /// Maps the first row of a query, or nil when there is none.
    func first<T>(_ sql: String, _ arguments: [SQLValue] = [], _ map: (PostgresRow) throws -> T) throws -> T? {
        let result = try run(sql, arguments)
        return result.rowCount > 0 ? try map(PostgresRow(result: result, row: 0)) : nil
    }

    /// Runs `body` inside `BEGIN ... COMMIT`, rolling back if it throws. The `BEGIN` goes with the first
    /// statement, in its round trip; a `body` that ran none ends no transaction; one whose last statements
    /// carried the `COMMIT` (`pipeline(_:committing:)`) is not committed again.
    func transaction<T>(_ begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        deferredBegin = begin
        do {
            let result = try body()
            if committed {
                committed = false
                return result
            }
            if deferredBegin != nil {
                deferredBegin = nil
                return result
            }
            try executeScript("COMMIT")
            return result
        } catch {
            // Committed with its last statements, then `body` threw: there is nothing left to roll back.
            let over = committed
            committed = false
            if deferredBegin != nil { deferredBegin = nil } else if !over { _ = try? executeScript("ROLLBACK") }
            throw error
        }
    }

    /// Sends the deferred `BEGIN` on its own, for what cannot carry it (a script, a COPY).
    func sendDeferredBegin() throws {
        guard let begin = deferredBegin else { return }
        deferredBegin = nil
        let conn = try live()
        roundTrips += 1
        let result = PQexec(conn, begin)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw failure(result, sql: begin) }
    }
}

/// A statement sent after its transaction's `COMMIT` (`PostgresConnection.pipeline(_:committing:)`).
struct StatementAfterCommit: Error, CustomStringConvertible {
    let sql: String?
    var description: String { "a statement after its transaction's COMMIT" + (sql.map { " (\($0.prefix(120)))" } ?? "") }
}

/// A query's result, cleared when the last row view is gone.
final class PostgresResult {
    let handle: OpaquePointer
    init(handle: OpaquePointer) { self.handle = handle }
    deinit { PQclear(handle) }

    var rowCount: Int { Int(PQntuples(handle)) }

    /// Every row, mapped, in order.
    func rows<T>(_ map: (PostgresRow) throws -> T) rethrows -> [T] {
        var out: [T] = []
        out.reserveCapacity(rowCount)
        for i in 0..<rowCount { out.append(try map(PostgresRow(result: self, row: Int32(i)))) }
        return out
    }
    var affectedRows: Int {
        if PQresultStatus(handle) == PGRES_TUPLES_OK { return rowCount }
        guard let p = PQcmdTuples(handle) else { return 0 }
        return Int(String(cString: p)) ?? 0
    }
}

/// One row of a result (text format), read the way `SQLiteRow` is.
struct PostgresRow {
    let result: PostgresResult
    let row: Int32

    func isNull(_ column: Int) -> Bool { PQgetisnull(result.handle, row, Int32(column)) == 1 }

    func text(_ column: Int) -> String {
        guard let p = PQgetvalue(result.handle, row, Int32(column)) else { return "" }
        let n = Int(PQgetlength(result.handle, row, Int32(column)))
        return p.withMemoryRebound(to: UInt8.self, capacity: n) { String(decoding: UnsafeBufferPointer(start: $0, count: n), as: UTF8.self) }
    }
    func optionalText(_ column: Int) -> String? { isNull(column) ? nil : text(column) }
    func int64(_ column: Int) -> Int64 { Int64(text(column)) ?? 0 }
    func int(_ column: Int) -> Int { Int(text(column)) ?? 0 }
    func optionalInt(_ column: Int) -> Int? { isNull(column) ? nil : int(column) }
    func double(_ column: Int) -> Double { Double(text(column)) ?? 0 }
    func optionalDouble(_ column: Int) -> Double? { isNull(column) ? nil : double(column) }
    func bool(_ column: Int) -> Bool { text(column) == "t" }
    func date(_ column: Int) -> Date { Date(timeIntervalSince1970: double(column)) }
    func optionalDate(_ column: Int) -> Date? { optionalDouble(column).map(Date.init(timeIntervalSince1970:)) }

    /// bytea in text format is `\x` followed by hex digits.
    func blob(_ column: Int) -> [UInt8] {
        let hex = Array(text(column).utf8.dropFirst(2))
        var out = [UInt8]()
        out.reserveCapacity(hex.count / 2)
        func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : (c | 0x20) - 87 }
        var i = 0
        while i + 1 < hex.count { out.append(nibble(hex[i]) << 4 | nibble(hex[i + 1])); i += 2 }
        return out
    }
}

/// Values for PostgreSQL array parameters (`= ANY($1::text[])`, `unnest(...)`), written in the array's text
/// form and bound as one parameter: a list of any length is one statement, and no value enters the SQL.
enum PGArray {
    /// An array literal, written in UTF-8 bytes: an import sends 5,000 tokens in one, and appending them to a
    /// `String` scalar by scalar took ~2.8 µs per 64-character token.
    static func text(_ values: [String?]) -> SQLValue {
        var out: [UInt8] = [0x7B]   // {
        out.reserveCapacity(2 + values.reduce(0) { $0 + ($1?.utf8.count ?? 4) + 3 })
        for (i, v) in values.enumerated() {
            if i > 0 { out.append(0x2C) }   // ,
            guard let v else { out += "NULL".utf8; continue }
            out.append(0x22)
            for b in v.utf8 {
                if b == 0x22 || b == 0x5C { out.append(0x5C) }   // " and \ are escaped with a backslash
                out.append(b)
            }
            out.append(0x22)
        }
        out.append(0x7D)   // }
        return .text(String(decoding: out, as: UTF8.self))
    }
    static func text(_ values: [String]?) -> SQLValue {
        guard let values else { return .null }
        return text(values.map(Optional.some))
    }
    /// One column of bound values as an array (elements in their text form, quoted; the array's type,
    /// given by the statement's cast, reads them): `1`/`0` for a boolean, `\x...` for bytes.
    static func column(_ values: [SQLValue]) -> SQLValue {
        text(values.map { value -> String? in
            switch value {
            case .null: nil
            case .integer(let v): String(v)
            case .real(let v): String(v)
            case .text(let v): v
            case .blob(let b): "\\x" + b.map { String(format: "%02x", $0) }.joined()
            }
        })
    }
    static func int(_ values: [Int64?]) -> SQLValue {
        .text("{" + values.map { $0.map(String.init) ?? "NULL" }.joined(separator: ",") + "}")
    }
    static func int(_ values: [Int64]) -> SQLValue { .text("{" + values.map(String.init).joined(separator: ",") + "}") }
    static func bool(_ values: [Bool]) -> SQLValue { .text("{" + values.map { $0 ? "t" : "f" }.joined(separator: ",") + "}") }
    static func double(_ values: [Double?]) -> SQLValue {
        .text("{" + values.map { $0.map { String($0) } ?? "NULL" }.joined(separator: ",") + "}")
    }
}

extension Date {
    var pg: SQLValue { .real(timeIntervalSince1970) }
}

extension Optional where Wrapped == Date {
    var pg: SQLValue { map { .real($0.timeIntervalSince1970) } ?? .null }
}
