import Foundation
import HeraldStore

/// The delivery journal on SQLite: seqs APNs accepted of fan-out pages not yet written (the contract is in
/// `HeraldStorage`). One node uses a file, so the fan-out is this node's while the push is not done.
///
/// The entries live in a file of their own (`journal`), with its own writer: the push's cursor is read from
/// the main file's reader, which a page write in progress does not hold up. A cursor read just before a page
/// write commits lets an entry the cursor has passed in; reads skip it (`after`), and the next commit or the
/// fan-out's end deletes it.
extension SQLiteStore {
    /// 2 ms: a commit is a small write to the journal's own file, without a sync, which 500 a second during a
    /// fan-out did not measurably cost (docs/performance.md, "Crash duplicates, round 6" and "Round 23"). At the
    /// fan-out's rate since round 23, 5 ms let a kill re-send more than issue #19's 0.5% of a 100,000-device push
    /// in 4 of 21 kills, 2 ms in 1 of 21.
    public var defaultJournalInterval: Double { 0.002 }

    public func journalAccepted(pushID: String, seqs: [Int64]) async throws -> Bool {
        let fanOut = try await database.read { db in
            try db.first("SELECT fanout_cursor, fanout_done FROM pushes WHERE id = ?", [.text(pushID)], { ($0.int64(0), $0.bool(1)) })
        }
        guard let (cursor, done) = fanOut, !done else {
            try await forgetJournal(pushID: pushID)
            return false
        }
        try await journal.write { db in
            // Entries of pages written since: the cursor passed them, nothing reads them again.
            try db.execute("DELETE FROM delivery_journal WHERE push_id = ? AND last_seq <= ?", [.text(pushID), .integer(cursor)])
            guard let entry = JournaledSeqs.entry(seqs, beyond: cursor) else { return }
            try db.execute("INSERT INTO delivery_journal (push_id, first_seq, last_seq, seqs) VALUES (?, ?, ?, ?)",
                           [.text(pushID), .integer(entry.first), .integer(entry.last), .blob(entry.bytes)])
            self.journaledPushes.withLock { _ = $0.insert(pushID) }
        }
        return true
    }

    public func journaledSeqs(pushID: String, after: Int64, through: Int64) async throws -> [Int64] {
        try await journal.read { db in
            JournaledSeqs.merged(try db.all("SELECT seqs FROM delivery_journal WHERE push_id = ? AND last_seq > ? AND first_seq <= ?",
                                            [.text(pushID), .integer(after), .integer(through)]) { $0.blob(0) },
                                 after: after, through: through)
        }
    }

    /// Deletes the push's entries: its fan-out is complete, or the push is gone. Writes nothing when this
    /// store wrote none and found none at its start. (An entry whose commit queued behind this call outlives
    /// it; reads skip it, as they skip every entry the cursor passed, and the next purge's sweep deletes it.)
    func forgetJournal(pushID: String) async throws {
        guard journaledPushes.withLock({ $0.contains(pushID) }) else { return }
        try await deleteJournalEntries(pushID: pushID)
    }

    private func deleteJournalEntries(pushID: String) async throws {
        try await journal.write { db in
            try db.execute("DELETE FROM delivery_journal WHERE push_id = ?", [.text(pushID)])
            self.journaledPushes.withLock { _ = $0.remove(pushID) }
        }
    }

    /// Deletes the entries of pushes whose fan-out is complete or that no longer exist (deleted, purged, or
    /// their app deleted): the main file's cascades do not reach this one.
    func sweepJournal() async throws {
        let journaled = try await journal.read { db in try db.all("SELECT DISTINCT push_id FROM delivery_journal") { $0.text(0) } }
        guard !journaled.isEmpty else { return }
        let fanningOut = Set(try await database.read { db in
            try db.all("SELECT id FROM pushes WHERE fanout_done = 0 AND id IN (SELECT value FROM json_each(?))",
                       [jsonArray(journaled)]) { $0.text(0) }
        })
        for pushID in journaled where !fanningOut.contains(pushID) { try await deleteJournalEntries(pushID: pushID) }
    }
}
