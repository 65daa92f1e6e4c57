import Foundation
import HeraldStore

/// A failure reported by SQLite, with the engine's own message and the statement that failed.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The primary SQLite result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, ...).
    public var code: Int32
    public var message: String
    public var sql: String?
    /// The operating system's errno behind an I/O error (0 when there is none).
    public var systemErrno: Int32 = 0

    public var description: String {
        "SQLite error \(code): \(message)" + (sql.map { " (in: \($0.prefix(120)))" } ?? "")
    }

    /// True for UNIQUE / PRIMARY KEY / CHECK violations, which callers map to conflicts.
    public var isConstraintViolation: Bool { code & 0xff == 19 }

    /// True when the write failed for lack of space: SQLITE_FULL (a full disk, or `max_page_count`), or an
    /// I/O error whose cause is ENOSPC / EDQUOT (SQLite reports some failed writes to the WAL that way).
    public var isStorageFull: Bool {
        switch code & 0xff {
        case 13: true
        case 10: systemErrno == ENOSPC || systemErrno == EDQUOT
        default: false
        }
    }
}
