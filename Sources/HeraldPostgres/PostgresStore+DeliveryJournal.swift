import Foundation
import HeraldStore

/// The delivery journal on PostgreSQL: seqs APNs accepted of fan-out pages not yet written (the contract is
/// in `HeraldStorage`). Only the node holding the push's fan-out (`pushes.fanout_node`) may journal it.
extension PostgresStore {
    /// 5 ms: each commit is a durable commit of the database every node shares, whose cost at 500 a second has
    /// not been measured.
    public var defaultJournalInterval: Double { 0.005 }

    public func journalAccepted(pushID: String, seqs: [Int64]) async throws -> Bool {
        let node = self.node
        return try await database.write { db in
            // Not locked: `recordPage` holds the push row while it writes a page, and a journal entry must not
            // wait for that. A fan-out taken over between this read and the commit gets an entry that is still
            // true (APNs accepted those members) and changes no counter: the new holder sends them again or
            // writes them as sent, never counts them twice.
            guard let (cursor, done, holder) = try db.first("SELECT fanout_cursor, fanout_done, fanout_node FROM pushes WHERE id = $1",
                                                            [.text(pushID)], { ($0.int64(0), $0.bool(1), $0.optionalText(2)) }),
                  !done, holder == node else { return false }
            // Entries of pages written since: the cursor passed them, nothing reads them again.
            try db.execute("DELETE FROM delivery_journal WHERE push_id = $1 AND last_seq <= $2", [.text(pushID), .integer(cursor)])
            guard let entry = JournaledSeqs.entry(seqs, beyond: cursor) else { return true }
            try db.execute("INSERT INTO delivery_journal (push_id, first_seq, last_seq, seqs) VALUES ($1, $2, $3, $4)",
                           [.text(pushID), .integer(entry.first), .integer(entry.last), .blob(entry.bytes)])
            return true
        }
    }

    public func journaledSeqs(pushID: String, after: Int64, through: Int64) async throws -> [Int64] {
        try await database.read { db in
            JournaledSeqs.merged(try db.all("SELECT seqs FROM delivery_journal WHERE push_id = $1 AND last_seq > $2 AND first_seq <= $3",
                                            [.text(pushID), .integer(after), .integer(through)]) { $0.blob(0) },
                                 after: after, through: through)
        }
    }
}
