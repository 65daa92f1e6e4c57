import Foundation

/// What a node learns when it renews its lease (`HeraldStorage.renewNode`).
public struct NodeRenewal: Sendable, Equatable {
    /// False when the node had no lease to renew: its first renewal, or its lease expired and another node
    /// rescued its work (then anything it still holds in memory is no longer its own).
    public var wasRegistered: Bool
    /// Nodes whose lease has not expired, this one included (at least 1).
    public var liveNodes: Int

    public init(wasRegistered: Bool, liveNodes: Int) {
        self.wasRegistered = wasRegistered
        self.liveNodes = liveNodes
    }
}

/// What `HeraldStorage.rescueExpiredNodes` took back from nodes whose lease expired.
public struct RescueReport: Sendable, Equatable {
    public var nodes: [String]
    /// In-flight deliveries returned to the queue.
    public var deliveries: Int
    /// Pushes whose fan-out is free for another node to take.
    public var fanOuts: Int

    public init(nodes: [String] = [], deliveries: Int = 0, fanOuts: Int = 0) {
        self.nodes = nodes
        self.deliveries = deliveries
        self.fanOuts = fanOuts
    }

    public var isEmpty: Bool { nodes.isEmpty }
}

/// A node's registration, for monitoring (`HeraldStorage.nodes`).
public struct NodeRecord: Sendable, Equatable {
    public var id: String
    public var startedAt: Date
    public var expiresAt: Date
    /// Deliveries this node has in flight.
    public var inFlight: Int
    /// Pushes whose fan-out this node holds.
    public var fanOuts: Int
    /// Named leases this node holds (`scheduler`).
    public var leases: [String]

    public init(id: String, startedAt: Date, expiresAt: Date, inFlight: Int, fanOuts: Int, leases: [String]) {
        self.id = id; self.startedAt = startedAt; self.expiresAt = expiresAt
        self.inFlight = inFlight; self.fanOuts = fanOuts; self.leases = leases
    }
}

public enum NodeIdentity {
    /// A node id unique to this process: `name` (the host name by default) and a random suffix, so a node
    /// that restarts never mistakes the leases of its previous life for its own.
    public static func make(name: String? = nil) -> String {
        let base = name ?? ProcessInfo.processInfo.hostName
        var rng = SystemRandomNumberGenerator()
        let suffix = String(UInt32.random(in: 0...UInt32.max, using: &rng), radix: 16)
        return "\(base)-\(String(repeating: "0", count: 8 - suffix.count))\(suffix)"
    }
}
