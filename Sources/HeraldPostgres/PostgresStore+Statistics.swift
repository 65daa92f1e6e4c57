import Foundation
import HeraldStore

extension PostgresStore {
    public func pushStatistics(appID: String, since: Date, interval: TimeInterval) async throws -> [PushStatisticsBucket] {
        try await database.read { db in
            let args: [SQLValue] = [.real(interval), .text(appID), since.pg]
            var buckets: [Int64: PushStatisticsBucket] = [:]
            for (b, bucket) in try db.all("""
                SELECT floor(created_at / $1)::bigint AS b, count(*), sum(targeted), sum(sent), sum(failed), sum(opened)
                FROM pushes WHERE app_id = $2 AND created_at >= $3 GROUP BY b
                """, args, { r in
                    (r.int64(0), PushStatisticsBucket(start: Date(timeIntervalSince1970: Double(r.int64(0)) * interval), pushes: r.int(1),
                                                      targeted: r.int(2), sent: r.int(3), failed: r.int(4), opened: r.int(5)))
                }) { buckets[b] = bucket }
            for (b, reason, count) in try db.all("""
                SELECT floor(p.created_at / $1)::bigint AS b, f.reason, sum(f.count) FROM push_failures f JOIN pushes p ON p.id = f.push_id
                WHERE p.app_id = $2 AND p.created_at >= $3 GROUP BY b, f.reason
                """, args, { r in (r.int64(0), r.text(1), r.int(2)) }) { buckets[b]?.failedByReason[reason] = count }
            return buckets.keys.sorted().compactMap { buckets[$0] }
        }
    }

    public func installationCounts(appID: String) async throws -> InstallationCounts {
        try await database.read { db in
            var counts = InstallationCounts(active: 0, retired: 0)
            for (active, n) in try db.all("SELECT active, count(*) FROM installations WHERE app_id = $1 GROUP BY active", [.text(appID)], { r in (r.bool(0), r.int(1)) }) {
                if active { counts.active = n } else { counts.retired = n }
            }
            return counts
        }
    }
}
