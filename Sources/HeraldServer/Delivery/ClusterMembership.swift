import Foundation
import Synchronization
import HeraldStore

/// This node's part in a cluster of `herald serve` nodes on one PostgreSQL database (a store that
/// `isShared`): it renews the node's lease every `cluster.renewSeconds`, holds the `scheduler` lease when
/// it can (the holder promotes scheduled pushes, purges, and rescues the work of nodes whose lease
/// expired), and wakes the delivery loop when another node announces work (LISTEN/NOTIFY).
///
/// Timings (defaults: lease 15 s, renewal every 5 s, as River's leader election): a node that dies is
/// noticed within lease + renewal, at most 20 s, and its work goes on elsewhere; a live node can miss two
/// renewals (a slow database, a long pause) before it loses anything. A leader that regains the database
/// after losing it waits one lease before rescuing, so nodes cut off with it have a lease's time to renew.
final class ClusterMembership: Sendable {
    static let schedulerLease = "scheduler"

    private let env: ServiceEnvironment
    private struct State {
        var task: Task<Void, Never>?
        var watch: (any WorkWatch)?
        var liveNodes = 1
        /// Until `start`, the engine is driven by hand (`runUntilIdle`, tests and tools) and acts alone.
        var isLeader = true
        /// Since when renewals have succeeded without a failure in between.
        var connectedSince: Date?
        var registered = false
    }
    private let state = Mutex(State())

    init(env: ServiceEnvironment) { self.env = env }

    var store: any HeraldStorage { env.store }
    /// Whether this node holds the scheduler lease (promotes, purges, rescues).
    var isLeader: Bool { state.withLock { $0.isLeader } }
    /// Live nodes at the last renewal: rate limits are shared among them.
    var liveNodes: Int { state.withLock { $0.liveNodes } }

    /// Registers the node, then renews in the background; `wake` is called when other nodes announce work.
    func start(wake: @escaping @Sendable () -> Void) async {
        state.withLock { $0.isLeader = false }
        await heartbeat()
        let watch = try? await store.watchForWork(wake)
        let interval = env.configuration.renewSeconds
        let task = Task { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(interval))
                if Task.isCancelled { break }
                if await heartbeat() { wake() }
            }
        }
        state.withLock { $0.task = task; $0.watch = watch }
        env.log(.info, "node \(store.node) joined the cluster (lease \(env.configuration.leaseSeconds) s, renewed every \(interval) s)")
    }

    /// One renewal; as leader, also the rescue of expired nodes. Returns whether work was rescued.
    @discardableResult
    func heartbeat() async -> Bool {
        let now = env.clock.now()
        let lease = env.configuration.leaseSeconds
        do {
            let renewal = try await store.renewNode(now: now, until: now.addingTimeInterval(lease))
            let leader = try await store.acquireLease(Self.schedulerLease, now: now, until: now.addingTimeInterval(lease))
            let (wasRegistered, since, wasLeader) = state.withLock { s in
                defer {
                    s.registered = true
                    s.liveNodes = renewal.liveNodes
                    s.isLeader = leader
                    if s.connectedSince == nil { s.connectedSince = now }
                }
                return (s.registered, s.connectedSince ?? now, s.isLeader)
            }
            if wasRegistered, !renewal.wasRegistered {
                env.log(.warning, "node \(store.node): its lease had expired and another node took its work over; it goes on with new claims")
            }
            if leader != wasLeader { env.log(.info, "node \(store.node) \(leader ? "holds" : "gave up") the scheduler lease") }
            env.metrics.set("herald_cluster_nodes", Double(renewal.liveNodes))
            env.metrics.set("herald_cluster_leader", leader ? 1 : 0)
            // After an outage every lease looks expired: wait one lease so the others can renew first.
            guard leader, now.timeIntervalSince(since) >= lease else { return false }
            let rescued = try await store.rescueExpiredNodes(now: now)
            guard !rescued.isEmpty else { return false }
            env.metrics.increment("herald_cluster_rescues_total", by: Double(rescued.nodes.count))
            env.log(.warning, "node \(store.node) rescued the work of expired node(s) \(rescued.nodes.joined(separator: ", ")): "
                    + "\(rescued.deliveries) deliveries back in the queue, \(rescued.fanOuts) fan-outs free")
            return true
        } catch {
            let wasConnected = state.withLock { s -> Bool in
                defer { s.connectedSince = nil; s.isLeader = false }
                return s.connectedSince != nil
            }
            if wasConnected { env.log(.error, "node \(store.node) cannot renew its lease: \(error); retrying every \(env.configuration.renewSeconds) s") }
            return false
        }
    }

    /// Stops renewing and gives this node's work back at once, so the others need not wait for its lease.
    func stop() async -> Int {
        let (task, watch) = state.withLock { s in
            defer { s.task = nil; s.watch = nil }
            return (s.task, s.watch)
        }
        task?.cancel()
        await task?.value
        await watch?.stop()
        return (try? await store.releaseNode(now: env.clock.now())) ?? 0
    }
}
