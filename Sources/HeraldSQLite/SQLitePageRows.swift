import Foundation
import HeraldStore

/// A fan-out page's delivery rows as the insert's parameters, encoded before the writer takes the page
/// (`SQLiteStore.recordPage`): every text in one arena, bound in place (`SQLiteBindArena`). Bound from
/// `SQLValue`s, each of a row's six texts was copied by SQLite (a `malloc`, a `memcpy` and a `free`) on the
/// writer's thread; encoded here, the caller's thread does the work while the writer runs other pages.
struct SQLitePageRows: Sendable {
    static let columns = 13
    /// Rows per statement: one statement per row cost as much again in SQLite's per-statement work (opening
    /// cursors) as the inserts themselves.
    static let rowsPerInsert = 64
    private static let statePosition = 7

    private(set) var arena: SQLiteBindArena
    let count: Int
    /// Rows written pending (not attempted, or left for a retry): cancelled instead if the push ended while
    /// its page was out (`cancelPending`).
    private var pending: [Int] = []
    private(set) var sent = 0, failed = 0
    /// Failed rows by APNs reason.
    private(set) var reasons: [String: Int] = [:]

    init(pushID: String, badge: Int?, rows: [PageDelivery], now: Date) {
        count = rows.count
        // A row's texts: a 36-character installation id, a 64-digit token, two short names, their NULs.
        arena = SQLiteBindArena(reservingBytes: pushID.utf8.count + 1 + rows.count * 160, values: rows.count * Self.columns)
        let push = arena.append(text: pushID)
        let updated = now.sql
        // Rows are read in place by index: iterating the array copied each row out of it (a retain and a release
        // of each of its strings).
        for index in rows.indices {
            let d = rows[index].planned
            var state = DeliveryState.pending, attempts = 0, notBefore = d.notBefore, status: Int?, reason: String?
            switch rows[index].outcome {
            case nil, .requeue?: break
            case .sent(let code)?:
                (state, attempts, status) = (.sent, 1, code)
                sent += 1
            case let .failed(why, code, _, _)?:
                (state, attempts, status, reason) = (.failed, 1, code, why)
                failed += 1
                reasons[why, default: 0] += 1
            case let .retry(at, why, code)?:
                (attempts, notBefore, status, reason) = (1, at, code, why)
            }
            if state == .pending { pending.append(index) }
            if index > 0 { arena.append(again: push) }
            arena.append(.integer(d.seq)); arena.append(text: d.installationID); arena.append(text: d.deviceToken)
            arena.append(text: d.environment); arena.append(text: d.variant); arena.append(.optionalInt(badge))
            arena.append(.int(state.rawValue)); arena.append(.int(attempts)); arena.append(notBefore.sql)
            arena.append(.optionalInt(status)); arena.append(.optionalText(reason)); arena.append(updated)
        }
    }

    /// Writes the rows left pending as cancelled: their push ended while the page was out. Returns how many.
    mutating func cancelPending() -> Int {
        for row in pending { arena.replace(row * Self.columns + Self.statePosition, with: .integer(Int64(DeliveryState.cancelled.rawValue))) }
        defer { pending = [] }
        return pending.count
    }

    /// Inserts the rows in the caller's transaction, `rowsPerInsert` per statement and the rest one by one.
    /// `OR FAIL`: a statement that writes many rows and may abort keeps a statement journal, a copy of every
    /// page it is about to change, to undo only itself; a page write that fails is rolled back whole, so that
    /// copy is never needed.
    func insert(_ db: SQLiteConnection) throws {
        try db.insert(rows: count, columns: Self.columns, of: arena, batched: Self.insertRows, batchRows: Self.rowsPerInsert, single: Self.insertRow)
    }

    private static let insertPrefix = """
        INSERT OR FAIL INTO deliveries (push_id, seq, installation_id, device_token, environment, variant, badge, state, attempts,
                                not_before, status, reason, updated_at) VALUES
        """
    private static let rowValues = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
    private static let insertRow = insertPrefix + " " + rowValues
    private static let insertRows = insertPrefix + " " + Array(repeating: rowValues, count: rowsPerInsert).joined(separator: ", ")
}
