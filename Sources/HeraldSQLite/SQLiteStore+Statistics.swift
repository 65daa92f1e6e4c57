import Foundation
import HeraldStore

extension SQLiteStore {
    public func pushStatistics(appID: String, since: Date, interval: TimeInterval) async throws -> [PushStatisticsBucket] {
        try await database.read { db in
            var buckets: [Int64: PushStatisticsBucket] = [:]
            let args: [SQLValue] = [.real(interval), .text(appID), since.sql]
            try db.query("""
                SELECT CAST(created_at / ? AS INTEGER) AS b, count(*), sum(targeted), sum(sent), sum(failed), sum(opened)
                FROM pushes WHERE app_id = ? AND created_at >= ? GROUP BY b
                """, args) { r in
                let b = r.int64(0)
                buckets[b] = PushStatisticsBucket(start: Date(timeIntervalSince1970: Double(b) * interval), pushes: r.int(1), targeted: r.int(2),
                                                  sent: r.int(3), failed: r.int(4), opened: r.int(5))
            }
            try db.query("""
                SELECT CAST(p.created_at / ? AS INTEGER) AS b, f.reason, sum(f.count) FROM push_failures f JOIN pushes p ON p.id = f.push_id
                WHERE p.app_id = ? AND p.created_at >= ? GROUP BY b, f.reason
                """, args) { r in buckets[r.int64(0)]?.failedByReason[r.text(1)] = r.int(2) }
            return buckets.keys.sorted().compactMap { buckets[$0] }
        }
    }

    public func installationCounts(appID: String) async throws -> InstallationCounts {
        try await database.read { db in
            var counts = InstallationCounts(active: 0, retired: 0)
            try db.query("SELECT active, count(*) FROM installations WHERE app_id = ? GROUP BY active", [.text(appID)]) { r in
                if r.int(0) != 0 { counts.active = r.int(1) } else { counts.retired = r.int(1) }
            }
            return counts
        }
    }
}
