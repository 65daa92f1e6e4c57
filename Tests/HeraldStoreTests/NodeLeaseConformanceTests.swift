import Foundation
import Synchronization
import Testing
@testable import HeraldStore

/// The "Nodes and leases" part of the storage contract, on every store: two stores on one database play
/// two nodes (`TestStore.openAsNode`).
@Suite struct NodeLeaseConformanceTests {
    static let lease: TimeInterval = 15

    /// Two nodes on a fresh database with `n` installations and one queued push "p1" to all of them.
    func twoNodes(_ kind: StoreKind, installations n: Int = 5) async throws -> (a: any HeraldStorage, b: any HeraldStorage) {
        let fresh = try await kind.makeStore()
        let a = try await fresh.openAsNode("node-a"), b = try await fresh.openAsNode("node-b")
        try await makeApp(a)
        for i in 0..<n { _ = try await register(a, iid: "i-\(i)", token: "t\(i)") }
        _ = try await a.insertPush(PushRecord(id: "p1", appID: "app1", idempotencyKey: nil, request: "{}", status: .queued,
                                              createdAt: t0, sendAt: nil, expiresAt: nil), idempotentSince: t0)
        return (a, b)
    }

    func queueAll(_ store: any HeraldStorage, push: String = "p1", badge: BadgeChange? = nil) async throws {
        var done = false
        while !done {
            done = try await store.fanOut(pushID: push, selector: AudienceSelector(source: .all), badge: badge, limit: 2, claim: 0, now: t0) { members in
                members.map { PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment, variant: "", notBefore: t0) }
            }.done
        }
    }

    @Test(arguments: StoreKind.available) func anExpiredNodesDeliveriesAndFanOutsAreRescuedOnceByAnotherNode(_ kind: StoreKind) async throws {
        let (a, b) = try await twoNodes(kind)
        #expect(try await a.renewNode(now: t0, until: t0 + Self.lease) == NodeRenewal(wasRegistered: false, liveNodes: 1))
        #expect(try await b.renewNode(now: t0, until: t0 + Self.lease) == NodeRenewal(wasRegistered: false, liveNodes: 2))
        // A fan-out is one node's: b cannot take what a holds.
        #expect(try await a.claimFanOuts(limit: 4, now: t0) == ["p1"])
        #expect(try await b.claimFanOuts(limit: 4, now: t0).isEmpty)
        #expect(try await b.claimFanOut(pushID: "p1", now: t0) == false)
        #expect(try await a.claimFanOut(pushID: "p1", now: t0))
        // a queues part of the audience and has three deliveries in flight; b one.
        _ = try await a.fanOut(pushID: "p1", selector: AudienceSelector(source: .all), badge: nil, limit: 4, claim: 0, now: t0) { members in
            members.map { PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment, variant: "", notBefore: t0) }
        }
        #expect(try await a.claimDeliveries(pushID: "p1", limit: 3, now: t0).count == 3)
        #expect(try await b.claimDeliveries(pushID: "p1", limit: 3, now: t0).count == 1)
        let listed = try await b.nodes()
        #expect(listed.map(\.id) == ["node-a", "node-b"])
        #expect(listed.map(\.inFlight) == [3, 1] && listed.map(\.fanOuts) == [1, 0])

        // b renews; a does not. Before a's lease ends nothing is rescued.
        let later = t0 + 10
        #expect(try await b.renewNode(now: later, until: later + Self.lease).wasRegistered)
        #expect(try await b.rescueExpiredNodes(now: later).isEmpty)
        let expired = t0 + Self.lease + 1
        #expect(try await b.renewNode(now: expired, until: expired + Self.lease).liveNodes == 1)
        #expect(try await b.rescueExpiredNodes(now: expired) == RescueReport(nodes: ["node-a"], deliveries: 3, fanOuts: 1))
        #expect(try await b.rescueExpiredNodes(now: expired).isEmpty, "rescued once")
        // a's deliveries are claimable again (b's own stays b's), and its fan-out is b's to take.
        #expect(try await b.claimDeliveries(pushID: "p1", limit: 10, now: expired).count == 3)
        #expect(try await b.claimFanOuts(limit: 4, now: expired) == ["p1"])
        #expect(try await b.nodes().map(\.inFlight) == [4])
        // a comes back: it learns that its work was taken over.
        #expect(try await a.renewNode(now: expired, until: expired + Self.lease).wasRegistered == false)
    }

    @Test(arguments: StoreKind.available) func claimsOfANodeThatNeverRegisteredAreRescuedAtOnce(_ kind: StoreKind) async throws {
        let (a, b) = try await twoNodes(kind)
        try await queueAll(a)
        _ = try await b.renewNode(now: t0, until: t0 + Self.lease)
        // a claims without ever registering (a tool, a process gone before its first renewal).
        #expect(try await a.claimFanOut(pushID: "p1", now: t0))
        #expect(try await a.claimDeliveries(pushID: "p1", limit: 2, now: t0).count == 2)
        #expect(try await b.claimDeliveries(pushID: "p1", limit: 1, now: t0).count == 1)
        // Only unregistered claims: b's lease has not expired, and would not be rescued even if it had.
        #expect(try await b.rescueExpiredNodes(now: .distantPast) == RescueReport(nodes: ["node-a"], deliveries: 2, fanOuts: 1))
        #expect(try await b.nodes().map(\.inFlight) == [1])
        #expect(try await b.claimDeliveries(pushID: "p1", limit: 10, now: t0).count == 4)
    }

    @Test(arguments: StoreKind.available) func aNamedLeaseIsHeldByOneNodeUntilItExpiresOrIsReleased(_ kind: StoreKind) async throws {
        let (a, b) = try await twoNodes(kind, installations: 0)
        #expect(try await a.acquireLease("scheduler", now: t0, until: t0 + Self.lease))
        #expect(try await b.acquireLease("scheduler", now: t0 + 1, until: t0 + 1 + Self.lease) == false)
        #expect(try await a.acquireLease("scheduler", now: t0 + 5, until: t0 + 5 + Self.lease), "the holder renews")
        #expect(try await b.acquireLease("scheduler", now: t0 + 15, until: t0 + 30) == false, "renewed until t0 + 20")
        #expect(try await b.acquireLease("scheduler", now: t0 + 21, until: t0 + 36))
        #expect(try await a.acquireLease("scheduler", now: t0 + 22, until: t0 + 37) == false)
        // A clean stop gives everything back at once.
        _ = try await b.renewNode(now: t0 + 22, until: t0 + 37)
        _ = try await b.releaseNode(now: t0 + 23)
        #expect(try await a.acquireLease("scheduler", now: t0 + 23, until: t0 + 38))
        #expect(try await a.nodes().isEmpty)
    }

    @Test(arguments: StoreKind.available) func aCleanStopReleasesOnlyThatNodesClaims(_ kind: StoreKind) async throws {
        let (a, b) = try await twoNodes(kind)
        try await queueAll(a)
        _ = try await a.renewNode(now: t0, until: t0 + Self.lease)
        _ = try await b.renewNode(now: t0, until: t0 + Self.lease)
        #expect(try await a.claimDeliveries(pushID: "p1", limit: 2, now: t0).count == 2)
        #expect(try await b.claimDeliveries(pushID: "p1", limit: 2, now: t0).count == 2)
        #expect(try await a.releaseNode(now: t0) == 2)
        #expect(try await b.nodes().map(\.inFlight) == [2])
        #expect(try await b.claimDeliveries(pushID: "p1", limit: 10, now: t0).count == 3)
    }

    @Test(arguments: StoreKind.available) func badgeIncrementsFromTwoNodesAtOnceAreAllKept(_ kind: StoreKind) async throws {
        let (a, b) = try await twoNodes(kind, installations: 40)
        _ = try await a.insertPush(PushRecord(id: "p2", appID: "app1", idempotencyKey: nil, request: "{}", status: .queued,
                                              createdAt: t0, sendAt: nil, expiresAt: nil), idempotentSince: t0)
        // Two pushes incrementing every badge, fanned out by two nodes at the same time, page by page.
        async let first: Void = queueAll(a, push: "p1", badge: .add(1))
        async let second: Void = queueAll(b, push: "p2", badge: .add(1))
        _ = try await (first, second)
        let badges = try await a.installations(appID: "app1", query: InstallationQuery(limit: 100)).map(\.badge)
        #expect(badges.count == 40 && badges.allSatisfy { $0 == 2 }, "\(badges)")
        // Each delivery carries the value its own increment produced: one push saw 1, the other 2.
        var seen: [String: Set<Int>] = [:]
        for push in ["p1", "p2"] {
            for d in try await a.deliveries(pushID: push, state: nil, afterID: 0, limit: 100) { seen[d.installationID, default: []].insert(d.badge ?? 0) }
        }
        #expect(seen.count == 40 && seen.values.allSatisfy { $0 == [1, 2] })
    }

    @Test(arguments: StoreKind.available) func announcedWorkWakesTheOtherNodesButNotTheAnnouncer(_ kind: StoreKind) async throws {
        let (a, b) = try await twoNodes(kind, installations: 0)
        let heardByA = Atomic<Int>(0), heardByB = Atomic<Int>(0)
        let watchA = try await a.watchForWork { heardByA.add(1, ordering: .relaxed) }
        let watchB = try await b.watchForWork { heardByB.add(1, ordering: .relaxed) }
        guard kind == .postgres else {
            #expect(watchA == nil && watchB == nil, "one node per SQLite file: nobody to hear from")
            try await a.announceWork()
            return
        }
        // LISTEN takes a moment to be in place: announce until b hears (or a generous deadline passes).
        let deadline = Date().addingTimeInterval(30)
        while heardByB.load(ordering: .relaxed) == 0, Date() < deadline {
            try await a.announceWork()
            try await Task.sleep(for: .milliseconds(100))
        }
        await watchA?.stop()
        await watchB?.stop()
        #expect(heardByB.load(ordering: .relaxed) > 0)
        #expect(heardByA.load(ordering: .relaxed) == 0)
    }
}
