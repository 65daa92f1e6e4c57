import Foundation
import HeraldStore

/// A registration's rows as they go in if the device is new, built by the caller before its write joins the
/// writer's group. When no stored installation holds the draft's installation id or token, the one writer
/// only binds the arena's values in place (`insert(_:)`) and answers with `answer` and the seq SQLite gave
/// the row. Building the record, its parameters and its sorted tags, and SQLite's copies of the texts, took
/// ~11,500 instructions a registration on the writer, the thread every registration waits for in turn
/// (docs/performance.md, "Round 21").
struct SQLiteNewInstallation: Sendable {
    /// The record `upsert` answers with, all but its seq.
    let answer: InstallationRecord
    /// The installation row's parameters (`SQLiteStore.insertInstallation`), then three per tag
    /// (`SQLiteStore.insertTag`: the app, the tag, and the seq as a relative value, known only after the insert).
    private let arena: SQLiteBindArena
    private let rowValues: Int

    init(appID: String, draft: InstallationDraft, newID: String, now: Date) {
        var record = InstallationRecord.new(appID: appID, installationID: draft.installationID ?? newID, id: newID,
                                            createdAt: draft.createdAt, now: now)
        record.apply(draft, now: now)
        // As `answering(written:existed:)` lists the tags a new record was written with: none when it sent none.
        answer = record.answering(written: draft.tags.map(Set.init), existed: false) { $0 }
        let rowCount = SQLiteStore.mutableColumns.count + 3   // as `insertValues` hands them over
        var arena = SQLiteBindArena(reservingBytes: 256 + 32 * answer.tags.count, values: rowCount + 3 * answer.tags.count)
        SQLiteStore.insertValues(record) { arena.append($0) }
        rowValues = arena.values.count
        let app = arena.values[rowValues - 2]   // `insertValues` ends with the id, the app's id and the creation time
        for tag in answer.tags {
            arena.append(again: app)
            arena.append(text: tag)
            arena.append(relative: 0)
        }
        self.arena = arena
    }

    /// Inserts the row and its tags in the writer's transaction; returns the answer with its seq.
    func insert(_ db: SQLiteConnection) throws -> InstallationRecord {
        try db.execute(SQLiteStore.insertInstallation, arena: arena, values: 0..<rowValues)
        var inserted = answer
        inserted.seq = db.lastInsertRowID
        var start = rowValues
        while start < arena.values.count {
            try db.execute(SQLiteStore.insertTag, arena: arena, values: start..<start + 3, base: inserted.seq)
            start += 3
        }
        return inserted
    }
}
