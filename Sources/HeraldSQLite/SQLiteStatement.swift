internal import CSQLite
internal import CHeraldShims
import HeraldStore

/// One prepared statement, owned by the connection that prepared it and used only on its queue.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    /// The statement's parameters: each execution binds every one of them (`bindNull(after:)`).
    let parameterCount: Int32

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
        parameterCount = sqlite3_bind_parameter_count(handle)
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ values: [SQLValue]) -> Int32 {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .real(let v): rc = sqlite3_bind_double(handle, index, v)
            case .text(let v):
                rc = v.withCString { herald_sqlite_bind_text(handle, index, $0, Int32(v.utf8.count)) }
            case .blob(let v):
                rc = v.withUnsafeBytes { herald_sqlite_bind_blob(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(v.count)) }
            }
            if rc != SQLITE_OK { return rc }
        }
        return bindNull(after: Int32(values.count))
    }

    /// Binds NULL to the parameters after the first `bound`. Every execution binds all parameters, so a
    /// value never carries over from the one before, and `reset` need not clear them: clearing a page
    /// write's 832 parameters, and freeing their copies to allocate them again at the next bind, was ~3%
    /// of the writer's time in an import. (A text bound in place from an arena is left pointing at
    /// memory that may be gone; SQLite reads a parameter only when the statement steps, after its next bind.)
    func bindNull(after bound: Int32) -> Int32 {
        var index = bound + 1
        while index <= parameterCount {
            let rc = sqlite3_bind_null(handle, index)
            if rc != SQLITE_OK { return rc }
            index += 1
        }
        return SQLITE_OK
    }

    func reset() {
        sqlite3_reset(handle)
    }
}

/// The current row of a query. Valid only inside the row callback.
public struct SQLiteRow {
    let handle: OpaquePointer

    init(handle: OpaquePointer) { self.handle = handle }

    public func isNull(_ column: Int) -> Bool { sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL }

    public func int64(_ column: Int) -> Int64 { sqlite3_column_int64(handle, Int32(column)) }
    public func int(_ column: Int) -> Int { Int(sqlite3_column_int64(handle, Int32(column))) }
    public func optionalInt(_ column: Int) -> Int? { isNull(column) ? nil : int(column) }
    public func double(_ column: Int) -> Double { sqlite3_column_double(handle, Int32(column)) }
    public func optionalDouble(_ column: Int) -> Double? { isNull(column) ? nil : double(column) }
    public func bool(_ column: Int) -> Bool { int64(column) != 0 }

    public func text(_ column: Int) -> String {
        guard let p = sqlite3_column_text(handle, Int32(column)) else { return "" }
        let n = Int(sqlite3_column_bytes(handle, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    public func optionalText(_ column: Int) -> String? { isNull(column) ? nil : text(column) }

    public func blob(_ column: Int) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(handle, Int32(column)))
        guard n > 0, let p = sqlite3_column_blob(handle, Int32(column)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
}
