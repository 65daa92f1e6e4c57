import Foundation
import HeraldStore

/// The webhook events of one transaction that writes many (a fan-out page, a batch's outcomes: two events per
/// retired device), collected and then written `rowsPerInsert` per statement. One statement per event paid
/// SQLite's per-statement work, and `webhook_events`' AUTOINCREMENT counter read and written, for each event
/// (row 8, docs/performance.md, "Round 23"). `insert` must run in the same transaction, before any event
/// recorded after these (`SQLiteOutbox.record`), so that `seq` keeps the order they happened in.
struct SQLiteOutboxRows {
    static let columns = 5
    static let rowsPerInsert = 64

    let outbox: SQLiteOutbox
    private var arena = SQLiteBindArena()
    private(set) var count = 0

    init(_ outbox: SQLiteOutbox) { self.outbox = outbox }

    /// The event once per subscribed webhook, all with the same event id and data (bound again, not copied).
    mutating func record(_ event: OutboxEvent, now: Date) {
        var shared: (id: SQLiteBindArena.Value, type: SQLiteBindArena.Value, data: SQLiteBindArena.Value)?
        for s in outbox.subscribers where s.events.contains(event.type.rawValue) {
            arena.append(text: s.id)
            if let shared {
                arena.append(again: shared.id); arena.append(again: shared.type); arena.append(now.sql); arena.append(again: shared.data)
            } else {
                let id = arena.append(text: WebhookEvent.newID()), type = arena.append(text: event.type.rawValue)
                arena.append(now.sql)
                shared = (id, type, arena.append(text: event.data))
            }
            count += 1
        }
    }

    func insert(_ db: SQLiteConnection) throws {
        try db.insert(rows: count, columns: Self.columns, of: arena, batched: Self.insertRows, batchRows: Self.rowsPerInsert, single: Self.insertRow)
    }

    private static func insert(rows: Int) -> String {
        "INSERT INTO webhook_events (webhook_id, event_id, type, created_at, data) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }
    private static let insertRow = insert(rows: 1)
    private static let insertRows = insert(rows: rowsPerInsert)
}
