/// A failure reported by SQLite, with the engine's own message and the statement that failed.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The primary SQLite result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, ...).
    public var code: Int32
    public var message: String
    public var sql: String?

    public var description: String {
        "SQLite error \(code): \(message)" + (sql.map { " (in: \($0.prefix(120)))" } ?? "")
    }

    /// True for UNIQUE / PRIMARY KEY / CHECK violations, which callers map to conflicts.
    public var isConstraintViolation: Bool { code & 0xff == 19 }
}
