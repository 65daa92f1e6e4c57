import Foundation
import Synchronization
import Testing
import APNSCore
import APNSClient
@testable import HeraldServer
@testable import HeraldSimulator

/// End to end on real sockets: the service delivers through `APNSClientTransport` (Herald's HTTP/2 APNs
/// client, TLS, token auth) to the APNs simulator, which validates every request like APNs and keeps
/// what each simulated device received.
@Suite struct SimulatorLiveTests {
    /// A simulator listening on a sandbox port of its own, its data (and CA) in `directory`, and the
    /// endpoints through which a transport reaches it.
    static func startSimulator(in directory: URL, _ configure: (inout SimulatorConfiguration) -> Void = { _ in }) async throws
        -> (Simulator, APNSClientTransport.Endpoints) {
        var config = SimulatorConfiguration()
        config.dataDirectory = directory
        config.sandboxPort = 0
        config.productionPort = nil
        configure(&config)
        let simulator = try Simulator(configuration: config)
        let ports = try await simulator.start()
        return (simulator, .init(sandbox: .custom(host: "127.0.0.1", port: ports.sandbox), production: .production,
                                 caFile: directory.appendingPathComponent("ca.pem").path))
    }

    @Test func pushReachesASimulatedDeviceAndAnUninstallRetiresTheInstallation() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-e2e-\(UUID().uuidString)")
        let (simulator, endpoints) = try await Self.startSimulator(in: directory.appendingPathComponent("sim"))
        let key = try simulator.generateSigningKey(bundleIDs: ["com.example.live"])
        let device = simulator.createDevice()
        let token = try simulator.install(bundleID: "com.example.live", environment: .sandbox, on: device.id).token

        let transport = APNSClientTransport(apple: endpoints)
        var config = HeraldConfiguration()
        config.databasePath = directory.appendingPathComponent("herald/herald.sqlite").path
        config.adminKey = testAdminKey
        config.runWorkers = false
        let clock = ManualClock(Date())
        let service = try await HeraldService(configuration: config, transport: transport, clock: clock)
        try await service.start()
        let t = TestService(wrapping: service, directory: directory)

        let app = try await t.createApp("Live", topic: "com.example.live", withCredentials: false)
        let upload = await t.call("PUT", "/v1/apps/\(app.id)/credentials/sandbox", key: app.master,
                                  json: ["type": "token", "keyId": .string(key.keyID), "teamId": .string(key.teamID), "key": .string(key.privateKeyPEM)])
        #expect(upload.status == 200, "\(upload.text)")
        try await t.register(app, "phone", token: token, extra: ["environment": "sandbox", "locale": "fr-FR"])

        let pushID = try await t.push(app, ["target": ["all": true], "content": ["alert": "Hello", "localized": ["fr": "Bonjour"], "badge": 3]])
        try await service.engine.runUntilIdle()
        let status = await t.status(app, pushID, include: true)
        #expect(status["counts"]?["sent"] == 1, "\(status.encoded)")
        let inbox = simulator.device(device.id)?.inbox ?? []
        #expect(inbox.count == 1)
        let received = try #require(inbox.first)
        let payload = try JSON(parsing: received.payload)
        #expect(payload["aps"]?["alert"] == "Bonjour" && payload["aps"]?["badge"] == 3)
        #expect(payload["herald"]?["pushId"]?.stringValue == pushID)
        #expect(received.apnsID.lowercased() == status["deliveries"]?.arrayValue?.first?["apnsId"]?.stringValue?.lowercased())

        // The user deletes the app: APNs answers 410 with the uninstall time, and Herald retires the device.
        clock.advance(by: 1)
        _ = try simulator.uninstall(bundleID: "com.example.live", from: device.id)
        let second = try await t.push(app, ["target": ["all": true], "content": ["alert": "Still there?"]])
        try await service.engine.runUntilIdle()
        let after = await t.status(app, second)
        #expect(after["failures"] == ["Unregistered": 1], "\(after.encoded)")
        #expect(await t.call("GET", "/v1/installations/phone", key: app.master).body["active"] == false)

        await service.shutdown()
        transport.shutdown()
        await simulator.stop()
        try? FileManager.default.removeItem(at: directory)
    }
    /// The dispatch slots of a round start their batches together. They must share one client per app and
    /// environment: a second client built in the race used to replace the first and shut it down, failing
    /// the first batch's notifications ("the APNs client is shut down") so they went out again later.
    @Test func batchesStartingTogetherShareOneClient() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-race-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (simulator, endpoints) = try await Self.startSimulator(in: directory)
        let key = try simulator.generateSigningKey(bundleIDs: ["com.example.race"])
        let token = try simulator.install(bundleID: "com.example.race", environment: .sandbox, on: simulator.createDevice().id).token
        let transport = APNSClientTransport(apple: endpoints)
        let bundle = CredentialBundle(appID: "app", environment: "sandbox",
                                      credential: .token(keyID: key.keyID, teamID: key.teamID, privateKeyPEM: key.privateKeyPEM), version: Date())
        let results = await withTaskGroup(of: [DeliveryResult].self) { group in
            for batch in 0..<8 {
                group.addTask {
                    let notifications = (0..<20).map { i in
                        OutgoingNotification(id: Int64(batch * 100 + i), deviceToken: token, apnsID: UUID(), topic: "com.example.race",
                                             pushType: "alert", priority: 10, expiration: nil, collapseID: nil, payload: Array(#"{"aps":{"alert":"x"}}"#.utf8))
                    }
                    return await transport.deliver(OutgoingBatch(appID: "app", pushID: "p", credential: bundle, notifications: notifications))
                }
            }
            var all: [DeliveryResult] = []
            for await r in group { all += r }
            return all
        }
        let failed = results.filter { $0.status != 200 }
        #expect(results.count == 160 && failed.isEmpty, "\(failed.prefix(3))")
        transport.shutdown()
        await simulator.stop()
    }

    /// The transport answers a batch with one result per notification in the batch's order, which the engine
    /// matches by position: those it rejects before sending (a token that is not hex) keep their place among
    /// those APNs answered.
    @Test func resultsComeBackInTheBatchOrder() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-order-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (simulator, endpoints, bundle) = try await Self.pacedSimulator(in: directory)
        let transport = APNSClientTransport(apple: endpoints)
        let payload = Array(#"{"aps":{"alert":"x"}}"#.utf8)
        let notifications = (0..<300).map { (i: Int) -> OutgoingNotification in
            let token = i % 97 == 5 ? "not-a-token" : String(format: "%064x", i + 1)
            return OutgoingNotification(id: Int64(1000 + i), deviceToken: token, apnsID: UUID(), topic: "com.example.wire",
                                        pushType: "alert", priority: 10, expiration: nil, collapseID: nil, payload: payload)
        }
        let results = await transport.deliver(OutgoingBatch(appID: "app", pushID: "p", credential: bundle, notifications: notifications))
        #expect(results.map { $0.id } == notifications.map { $0.id })
        #expect(results.filter { $0.status == 400 }.map { $0.id } == [1005, 1102, 1199, 1296])
        #expect(results.filter { $0.status == 200 }.count == 296)
        transport.shutdown()
        await simulator.stop()
    }

    /// Counts what the transport has on the wire: sent and not yet answered.
    final class Wire: APNSClientObserver {
        private let counts = Mutex((onWire: 0, most: 0, sent: 0, window: Int?.none))
        func sent() { counts.withLock { $0.onWire += 1; $0.sent += 1; $0.most = max($0.most, $0.onWire) } }
        func accepted(latency: Double) { counts.withLock { $0.onWire -= 1 } }
        func rejected(status: Int, reason: APNSReason?, latency: Double) { counts.withLock { $0.onWire -= 1 } }
        func failed(_ error: APNSClientError) { counts.withLock { $0.onWire -= 1 } }
        /// The largest window a probe chose: a later probe may shrink it while what the earlier one allowed is
        /// still on the wire (on a loaded machine, 488 in flight under a first window, then a window of 331).
        func windowSized(_ window: Int, probeSeconds: Double) { counts.withLock { $0.window = max($0.window ?? 0, window) } }
        var seen: (most: Int, sent: Int, window: Int?) { counts.withLock { ($0.most, $0.sent, $0.window) } }
    }

    /// A simulator that answers at once, accepting every request, or (with a `delay` in milliseconds) one that
    /// holds each answer that long, validating them (its faults apply only there: its tokens are unknown, so
    /// it answers BadDeviceToken); and a credential for it.
    static func pacedSimulator(in directory: URL, delay: Int = 0) async throws -> (Simulator, APNSClientTransport.Endpoints, CredentialBundle) {
        let (simulator, endpoints) = try await Self.startSimulator(in: directory) { config in
            if delay == 0 { config.mode = .acceptAll }
            config.faults.delayRate = 1
            config.faults.delayMilliseconds = delay
        }
        let key = try simulator.generateSigningKey(bundleIDs: ["com.example.wire"])
        let bundle = CredentialBundle(appID: "app", environment: "sandbox",
                                      credential: .token(keyID: key.keyID, teamID: key.teamID, privateKeyPEM: key.privateKeyPEM), version: Date())
        return (simulator, endpoints, bundle)
    }

    /// Four slots' batches of `size` handed to a new transport at once, as a round hands them over: the most
    /// that were on the wire together, how many were sent, answered and accepted.
    static func sendFourBatches(of size: Int, to endpoints: APNSClientTransport.Endpoints, as bundle: CredentialBundle,
                                inFlight: Int) async -> (most: Int, sent: Int, answered: Int, accepted: Int, window: Int?) {
        let wire = Wire()
        let transport = APNSClientTransport(apple: endpoints, inFlightPerApp: inFlight, observer: wire)
        let results = await withTaskGroup(of: [DeliveryResult].self) { group in
            for batch in 0..<4 {
                group.addTask {
                    let notifications = (0..<size).map { (i: Int) -> OutgoingNotification in
                        let n = batch * 100_000 + i
                        return OutgoingNotification(id: Int64(n), deviceToken: String(format: "%064x", n + 1), apnsID: UUID(),
                                                    topic: "com.example.wire", pushType: "alert", priority: 10, expiration: nil, collapseID: nil,
                                                    payload: Array(#"{"aps":{"alert":"x"}}"#.utf8))
                    }
                    return await transport.deliver(OutgoingBatch(appID: "app", pushID: "p", credential: bundle, notifications: notifications))
                }
            }
            var all: [DeliveryResult] = []
            for await r in group { all += r }
            return all
        }
        transport.shutdown()
        return (wire.seen.most, wire.seen.sent, results.filter { $0.status != nil }.count, results.filter { $0.status == 200 }.count, wire.seen.window)
    }

    /// `delivery.inFlight`: what a crash may send twice is what is on the wire, so the transport keeps at most
    /// that many requests unanswered per app and environment, whatever its slots hand over at once; the rest
    /// wait in the client and all go out.
    @Test func theWireHoldsAtMostTheInFlightLimitWhateverTheBatches() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-wire-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (simulator, endpoints, bundle) = try await Self.pacedSimulator(in: directory)
        let limited = await Self.sendFourBatches(of: 100, to: endpoints, as: bundle, inFlight: 16)
        #expect(limited.accepted == 400 && limited.sent == 400)
        #expect(limited.most <= 16, "\(limited.most) requests were on the wire at once")
        // The same batches with room for all of them: the limit, not the simulator's pace, kept the wire short.
        let open = await Self.sendFourBatches(of: 100, to: endpoints, as: bundle, inFlight: 2_000)
        #expect(open.accepted == 400)
        #expect(open.most > 16, "\(open.most)")
        await simulator.stop()
    }

    /// Below `delivery.inFlight`, the window follows the peer (`InFlightWindow`): a peer that answers a lone
    /// request at once gets a few hundred on the wire, what a crash would re-send; one that takes 300 ms (APNs
    /// far away) gets more, as its rate needs.
    @Test func theWindowOnTheWireFollowsHowFastThePeerAnswers() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-window-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (near, nearEndpoints, nearBundle) = try await Self.pacedSimulator(in: directory.appendingPathComponent("near"))
        // 256 for a lone answer within 2.56 ms, 500 for 5 ms. The probe's answer time is this process's too: with
        // other tests running beside it, the simulator may take 20 ms (and so get the whole limit), so each try
        // uses a new transport (a new probe), and one of them must see the small window.
        var seen: [Int] = []
        for _ in 0..<10 {
            let fast = await Self.sendFourBatches(of: 500, to: nearEndpoints, as: nearBundle, inFlight: 2_000)
            #expect(fast.accepted == 2_000)
            // The window the probe reported held the wire, whatever this machine's load made it.
            #expect(fast.window.map { fast.most <= $0 } == true, "\(fast.most) on the wire, window \(fast.window.map(String.init) ?? "never sized")")
            seen.append(fast.most)
            if fast.most <= 500 { break }
        }
        #expect(seen.last! <= 500, "on the wire to a peer that answers at once: \(seen)")
        await near.stop()
        let (far, farEndpoints, farBundle) = try await Self.pacedSimulator(in: directory.appendingPathComponent("far"), delay: 300)
        let slow = await Self.sendFourBatches(of: 500, to: farEndpoints, as: farBundle, inFlight: 2_000)
        #expect(slow.answered == 2_000)
        #expect(slow.window == 2_000)
        // Its window is the limit (100,000/s for 300 ms would need 30,000); how many go out within one answer
        // time depends on this machine's speed, but far more than the near peer's few hundred.
        #expect(slow.most > 1_000, "only \(slow.most) on the wire to a peer 300 ms away")
        await far.stop()
    }
}
