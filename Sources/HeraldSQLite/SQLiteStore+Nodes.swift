import Foundation
import HeraldStore

/// Nodes and leases on SQLite. One node uses a file (`isShared` is false), so the engine never needs most
/// of this; it is here so both stores keep one contract, held by one conformance suite.
extension SQLiteStore {
    public func renewNode(now: Date, until: Date) async throws -> NodeRenewal {
        let node = self.node
        return try await database.write { db in
            let renewed = try db.execute("UPDATE nodes SET expires_at = ? WHERE id = ?", [until.sql, .text(node)]) > 0
            if !renewed {
                try db.execute("INSERT INTO nodes (id, started_at, expires_at) VALUES (?, ?, ?)", [.text(node), now.sql, until.sql])
            }
            let live = try db.first("SELECT count(*) FROM nodes WHERE expires_at >= ?", [now.sql]) { $0.int(0) } ?? 1
            return NodeRenewal(wasRegistered: renewed, liveNodes: max(1, live))
        }
    }

    public func acquireLease(_ name: String, now: Date, until: Date) async throws -> Bool {
        let node = self.node
        return try await database.write { db in
            try db.execute("""
                INSERT INTO leases (name, node, expires_at) VALUES (?1, ?2, ?3)
                ON CONFLICT (name) DO UPDATE SET node = excluded.node, expires_at = excluded.expires_at
                WHERE leases.node = excluded.node OR leases.expires_at < ?4
                """, [.text(name), .text(node), until.sql, now.sql]) > 0
        }
    }

    public func rescueExpiredNodes(now: Date) async throws -> RescueReport {
        try await database.write { db in
            let expired = try db.all("SELECT id FROM nodes WHERE expires_at < ? ORDER BY id", [now.sql]) { $0.text(0) }
            let unregistered = try db.all("""
                SELECT claimed_by FROM deliveries WHERE state = 1 AND claimed_by IS NOT NULL AND claimed_by NOT IN (SELECT id FROM nodes)
                UNION SELECT fanout_node FROM pushes WHERE fanout_node IS NOT NULL AND fanout_node NOT IN (SELECT id FROM nodes)
                """) { $0.text(0) }
            let dead = (expired + unregistered).sorted()
            guard !dead.isEmpty else { return RescueReport() }
            let list = SQLValue.text(String(decoding: try JSONSerialization.data(withJSONObject: dead), as: UTF8.self))
            let deliveries = try db.execute("""
                UPDATE deliveries SET state = 0, claimed_by = NULL, updated_at = ?2
                WHERE state = 1 AND claimed_by IN (SELECT value FROM json_each(?1))
                """, [list, now.sql])
            let fanOuts = try db.execute("UPDATE pushes SET fanout_node = NULL WHERE fanout_node IN (SELECT value FROM json_each(?))", [list])
            try db.execute("DELETE FROM leases WHERE node IN (SELECT value FROM json_each(?))", [list])
            try db.execute("DELETE FROM nodes WHERE id IN (SELECT value FROM json_each(?))", [list])
            return RescueReport(nodes: dead, deliveries: deliveries, fanOuts: fanOuts)
        }
    }

    public func releaseNode(now: Date) async throws -> Int {
        let node = self.node
        return try await database.write { db in
            let released = try db.execute("UPDATE deliveries SET state = 0, claimed_by = NULL, updated_at = ? WHERE state = 1 AND claimed_by = ?",
                                          [now.sql, .text(node)])
            try db.execute("UPDATE pushes SET fanout_node = NULL WHERE fanout_node = ?", [.text(node)])
            try db.execute("DELETE FROM leases WHERE node = ?", [.text(node)])
            try db.execute("DELETE FROM nodes WHERE id = ?", [.text(node)])
            return released
        }
    }

    public func claimFanOuts(limit: Int, now: Date) async throws -> Set<String> {
        let node = self.node
        return try await database.write { db in
            try db.execute("""
                UPDATE pushes SET fanout_node = ?1 WHERE id IN (
                    SELECT id FROM pushes WHERE status IN ('queued', 'sending') AND NOT fanout_done AND fanout_node IS NULL
                    ORDER BY created_at, id LIMIT ?2)
                """, [.text(node), .int(limit)])
            return Set(try db.all("SELECT id FROM pushes WHERE fanout_node = ? AND status IN ('queued', 'sending') AND NOT fanout_done",
                                  [.text(node)]) { $0.text(0) })
        }
    }

    public func claimFanOut(pushID: String, now: Date) async throws -> Bool {
        let node = self.node
        return try await database.write { db in
            try db.execute("UPDATE pushes SET fanout_node = ?1 WHERE id = ?2 AND (fanout_node IS NULL OR fanout_node = ?1)",
                           [.text(node), .text(pushID)]) > 0
        }
    }

    public func nodes() async throws -> [NodeRecord] {
        try await database.read { db in
            try db.all("""
                SELECT n.id, n.started_at, n.expires_at,
                       (SELECT count(*) FROM deliveries d WHERE d.state = 1 AND d.claimed_by = n.id),
                       (SELECT count(*) FROM pushes p WHERE p.fanout_node = n.id AND p.status IN ('queued', 'sending') AND NOT p.fanout_done),
                       (SELECT group_concat(name, ',') FROM (SELECT name FROM leases l WHERE l.node = n.id ORDER BY name))
                FROM nodes n ORDER BY n.started_at, n.id
                """) { r in
                NodeRecord(id: r.text(0), startedAt: r.date(1), expiresAt: r.date(2), inFlight: r.int(3), fanOuts: r.int(4),
                           leases: (r.optionalText(5) ?? "").split(separator: ",").map(String.init))
            }
        }
    }

    public func announceWork() async throws {}

    public func watchForWork(_ onWork: @escaping @Sendable () -> Void) async throws -> (any WorkWatch)? { nil }
}
