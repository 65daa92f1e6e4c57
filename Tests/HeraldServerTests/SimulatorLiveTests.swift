import Foundation
import Testing
import APNSCore
@testable import HeraldServer
@testable import HeraldSimulator

/// End to end on real sockets: the service delivers through `APNSClientTransport` (Herald's HTTP/2 APNs
/// client, TLS, token auth) to the APNs simulator, which validates every request like APNs and keeps
/// what each simulated device received.
@Suite struct SimulatorLiveTests {
    @Test func pushReachesASimulatedDeviceAndAnUninstallRetiresTheInstallation() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-e2e-\(UUID().uuidString)")
        var simConfig = SimulatorConfiguration()
        simConfig.dataDirectory = directory.appendingPathComponent("sim")
        simConfig.sandboxPort = 0
        simConfig.productionPort = nil
        let simulator = try Simulator(configuration: simConfig)
        let ports = try await simulator.start()
        let key = try simulator.generateSigningKey(bundleIDs: ["com.example.live"])
        let device = simulator.createDevice()
        let token = try simulator.install(bundleID: "com.example.live", environment: .sandbox, on: device.id).token

        let transport = APNSClientTransport(apple: .init(sandbox: .custom(host: "127.0.0.1", port: ports.sandbox), production: .production,
                                                         caFile: simConfig.dataDirectory!.appendingPathComponent("ca.pem").path))
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
        var simConfig = SimulatorConfiguration()
        simConfig.dataDirectory = directory
        simConfig.sandboxPort = 0
        simConfig.productionPort = nil
        let simulator = try Simulator(configuration: simConfig)
        let ports = try await simulator.start()
        let key = try simulator.generateSigningKey(bundleIDs: ["com.example.race"])
        let token = try simulator.install(bundleID: "com.example.race", environment: .sandbox, on: simulator.createDevice().id).token
        let transport = APNSClientTransport(apple: .init(sandbox: .custom(host: "127.0.0.1", port: ports.sandbox), production: .production,
                                                         caFile: directory.appendingPathComponent("ca.pem").path))
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
}
