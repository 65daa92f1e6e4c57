import Foundation
import HeraldStore

/// The delivery journal on SQLite: seqs APNs accepted of fan-out pages not yet written (the contract is in
/// `HeraldStorage`). One node uses a file, so the fan-out is this node's while the push is not done.
extension SQLiteStore {
    public func journalAccepted(pushID: String, seqs: [Int64]) async throws -> Bool {
        try await database.write { db in
            guard let (cursor, done) = try db.first("SELECT fanout_cursor, fanout_done FROM pushes WHERE id = ?", [.text(pushID)],
                                                    { ($0.int64(0), $0.bool(1)) }), !done else { return false }
            // Entries of pages written since: the cursor passed them, nothing reads them again.
            try db.execute("DELETE FROM delivery_journal WHERE push_id = ? AND last_seq <= ?", [.text(pushID), .integer(cursor)])
            guard let entry = JournaledSeqs.entry(seqs, beyond: cursor) else { return true }
            try db.execute("INSERT INTO delivery_journal (push_id, first_seq, last_seq, seqs) VALUES (?, ?, ?, ?)",
                           [.text(pushID), .integer(entry.first), .integer(entry.last), .blob(entry.bytes)])
            return true
        }
    }

    public func journaledSeqs(pushID: String, after: Int64, through: Int64) async throws -> [Int64] {
        try await database.read { db in
            JournaledSeqs.merged(try db.all("SELECT seqs FROM delivery_journal WHERE push_id = ? AND last_seq > ? AND first_seq <= ?",
                                            [.text(pushID), .integer(after), .integer(through)]) { $0.blob(0) },
                                 after: after, through: through)
        }
    }
}
