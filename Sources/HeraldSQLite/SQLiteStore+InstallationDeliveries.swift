import Foundation
import HeraldStore

extension SQLiteStore {
    public func installationDeliveries(appID: String, seq: Int64, beforeID: Int64?, limit: Int) async throws -> [InstallationDeliveryRecord] {
        try await database.read { db in
            // deliveries_installation (seq, id) gives the page in order; each row joins its push by key.
            try db.all("""
                SELECT d.id, d.push_id, p.status, p.created_at, p.request, d.state, d.attempts, d.status, d.reason, d.updated_at
                FROM deliveries d JOIN pushes p ON p.id = d.push_id
                WHERE d.seq = ?1 AND d.id < ?2 AND p.app_id = ?3 ORDER BY d.id DESC LIMIT ?4
                """, [.integer(seq), .integer(beforeID ?? .max), .text(appID), .int(limit)]) { r in
                InstallationDeliveryRecord(deliveryID: r.int64(0), pushID: r.text(1), pushStatus: PushStatus(rawValue: r.text(2)) ?? .failed,
                                           pushCreatedAt: r.date(3), pushRequest: r.text(4), state: DeliveryState(rawValue: r.int(5)) ?? .failed,
                                           attempts: r.int(6), status: r.optionalInt(7), reason: r.optionalText(8), updatedAt: r.date(9))
            }
        }
    }
}
