import Foundation
import HeraldStore

/// Nodes and leases on PostgreSQL: the contract in `HeraldStorage` ("Nodes and leases"). A node's lease is
/// one row in `nodes`, renewed every few seconds, rather than a timestamp on each claimed row: renewing
/// costs one statement however many deliveries a node has in flight, and rescuing a node is a few
/// statements over the rows it claimed (`deliveries.claimed_by`, `pushes.fanout_node`).
extension PostgresStore {
    /// The NOTIFY channel on which nodes announce work; the payload is the announcing node's id.
    static let workChannel = "herald_work"

    public func renewNode(now: Date, until: Date) async throws -> NodeRenewal {
        let node = self.node
        return try await database.write { db in
            // xmax = 0 for a row this statement inserted, nonzero for one it updated.
            let updated = try db.first("""
                INSERT INTO nodes (id, started_at, expires_at) VALUES ($1, $2, $3)
                ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at RETURNING xmax <> 0
                """, [.text(node), now.pg, until.pg]) { $0.bool(0) } ?? false
            let live = try db.first("SELECT count(*) FROM nodes WHERE expires_at >= $1", [now.pg]) { $0.int(0) } ?? 1
            return NodeRenewal(wasRegistered: updated, liveNodes: max(1, live))
        }
    }

    public func acquireLease(_ name: String, now: Date, until: Date) async throws -> Bool {
        let node = self.node
        return try await database.write { db in
            try db.execute("""
                INSERT INTO leases (name, node, expires_at) VALUES ($1, $2, $3)
                ON CONFLICT (name) DO UPDATE SET node = excluded.node, expires_at = excluded.expires_at
                WHERE leases.node = excluded.node OR leases.expires_at < $4
                """, [.text(name), .text(node), until.pg, now.pg]) > 0
        }
    }

    public func rescueExpiredNodes(now: Date) async throws -> RescueReport {
        try await database.write { db in
            // Locked, so two rescuers (a lease handed over mid-rescue) take a node's work back once.
            let expired = try db.all("SELECT id FROM nodes WHERE expires_at < $1 ORDER BY id FOR UPDATE SKIP LOCKED", [now.pg]) { $0.text(0) }
            let unregistered = try db.all("""
                SELECT claimed_by FROM deliveries WHERE state = 1 AND claimed_by IS NOT NULL AND claimed_by NOT IN (SELECT id FROM nodes)
                UNION SELECT fanout_node FROM pushes WHERE fanout_node IS NOT NULL AND fanout_node NOT IN (SELECT id FROM nodes)
                """) { $0.text(0) }
            let dead = (expired + unregistered).sorted()
            guard !dead.isEmpty else { return RescueReport() }
            let list = PGArray.text(dead)
            let deliveries = try db.execute("""
                UPDATE deliveries SET state = 0, claimed_by = NULL, updated_at = $2 WHERE state = 1 AND claimed_by = ANY($1::text[])
                """, [list, now.pg])
            let fanOuts = try db.execute("UPDATE pushes SET fanout_node = NULL WHERE fanout_node = ANY($1::text[])", [list])
            try db.execute("DELETE FROM leases WHERE node = ANY($1::text[])", [list])
            try db.execute("DELETE FROM nodes WHERE id = ANY($1::text[])", [list])
            if deliveries + fanOuts > 0 { try Self.notifyWork(self.node, db) }
            return RescueReport(nodes: dead, deliveries: deliveries, fanOuts: fanOuts)
        }
    }

    public func releaseNode(now: Date) async throws -> Int {
        let node = self.node
        return try await database.write { db in
            let released = try db.execute("UPDATE deliveries SET state = 0, claimed_by = NULL, updated_at = $2 WHERE state = 1 AND claimed_by = $1",
                                          [.text(node), now.pg])
            let fanOuts = try db.execute("UPDATE pushes SET fanout_node = NULL WHERE fanout_node = $1", [.text(node)])
            try db.execute("DELETE FROM leases WHERE node = $1", [.text(node)])
            try db.execute("DELETE FROM nodes WHERE id = $1", [.text(node)])
            if released + fanOuts > 0 { try Self.notifyWork(node, db) }
            return released
        }
    }

    public func claimFanOuts(limit: Int, now: Date) async throws -> Set<String> {
        let node = self.node
        return try await database.write { db in
            try db.execute("""
                UPDATE pushes SET fanout_node = $1 WHERE id IN (
                    SELECT id FROM pushes WHERE status IN ('queued', 'sending') AND NOT fanout_done AND fanout_node IS NULL
                    ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
                """, [.text(node), .int(limit)])
            return Set(try db.all("SELECT id FROM pushes WHERE fanout_node = $1 AND status IN ('queued', 'sending') AND NOT fanout_done",
                                  [.text(node)]) { $0.text(0) })
        }
    }

    public func claimFanOut(pushID: String, now: Date) async throws -> Bool {
        let node = self.node
        return try await database.write { db in
            try db.execute("UPDATE pushes SET fanout_node = $1 WHERE id = $2 AND (fanout_node IS NULL OR fanout_node = $1)",
                           [.text(node), .text(pushID)]) > 0
        }
    }

    public func nodes() async throws -> [NodeRecord] {
        try await database.read { db in
            try db.all("""
                SELECT n.id, n.started_at, n.expires_at,
                       (SELECT count(*) FROM deliveries d WHERE d.state = 1 AND d.claimed_by = n.id),
                       (SELECT count(*) FROM pushes p WHERE p.fanout_node = n.id AND p.status IN ('queued', 'sending') AND NOT p.fanout_done),
                       (SELECT string_agg(name, ',' ORDER BY name) FROM leases l WHERE l.node = n.id)
                FROM nodes n ORDER BY n.started_at, n.id
                """) { r in
                NodeRecord(id: r.text(0), startedAt: r.date(1), expiresAt: r.date(2), inFlight: r.int(3), fanOuts: r.int(4),
                           leases: (r.optionalText(5) ?? "").split(separator: ",").map(String.init))
            }
        }
    }

    public func announceWork() async throws {
        let node = self.node
        try await database.withConnection { try Self.notifyWork(node, $0) }
    }

    static func notifyWork(_ node: String, _ db: PostgresConnection) throws {
        try db.execute("SELECT pg_notify($1, $2)", [.text(workChannel), .text(node)])
    }

    public func watchForWork(_ onWork: @escaping @Sendable () -> Void) async throws -> (any WorkWatch)? {
        PostgresListener(conninfo: conninfo, channel: Self.workChannel, ignoring: node, onNotify: onWork)
    }
}
