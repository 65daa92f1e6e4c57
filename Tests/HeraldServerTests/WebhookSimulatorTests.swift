import Foundation
import Testing
import HeraldHTTP
import HeraldSimulator
@testable import HeraldServer
import HeraldProvider

/// Events from real APNs answers: `herald serve`'s stack (HTTP server, service, background workers, APNs
/// client over TLS/HTTP/2) delivering to the built-in simulator, and a webhook receiver on a real socket.
@Suite struct WebhookSimulatorTests {
    struct Running {
        let server: ProviderServer
        let api: EndToEndTests.API
        let sim: Simulator
        let receiver: WebhookReceiver
        let master: String
        let client: String
        let appID: String
        let secret: String
    }

    func start(store: ServerStore, events: [String]) async throws -> Running {
        var settings = ProviderServer.Settings()
        settings.port = 0
        settings.simulatorInspectionPort = nil
        settings.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-wh-sim-\(UUID().uuidString)").path
        settings.service.databasePath = settings.dataDirectory + "/herald.sqlite"
        settings.service.storeURL = try await store.storeURL()
        settings.service.pollInterval = 0.05
        settings.service.webhooks.pollInterval = 0.05
        let server = try await ProviderServer.start(settings, log: { _, _ in })
        let api = EndToEndTests.API(client: HTTP1Client(host: "127.0.0.1", port: server.port))
        let receiver = try await WebhookReceiver()
        let master = try #require(server.bootstrap.masterKey), appID = try #require(server.bootstrap.appID)
        let (status, hook) = try await api.call("POST", "/v1/apps/\(appID)/webhooks", key: master, ["url": receiver.url, "events": events])
        #expect(status == 201)
        return Running(server: server, api: api, sim: try #require(server.simulator), receiver: receiver, master: master,
                       client: try #require(server.bootstrap.clientKey), appID: appID, secret: try #require(hook["secret"] as? String))
    }

    func stop(_ r: Running) async {
        await r.server.stop()
        await r.receiver.stop()
    }

    /// Waits (generously: the suite runs in parallel on loaded cores) until `condition` holds.
    func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<600 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    func events(_ r: Running, _ type: String) -> [JSON] { r.receiver.acknowledged.filter { $0["type"]?.stringValue == type } }

    @Test(arguments: ServerStore.available) func uninstalledDevicesAndOnlyThoseAreReportedRetired(_ store: ServerStore) async throws {
        let r = try await start(store: store, events: ["installation.retired", "push.done"])
        var tokens: [String] = []
        var phones: [Device] = []
        for i in 0..<6 {
            let phone = r.sim.createDevice(name: "phone \(i)")
            let installed = try r.sim.install(bundleID: "com.example.herald", environment: .sandbox, on: phone.id)
            #expect(try await r.api.call("POST", "/v1/installations", key: r.client, ["deviceToken": installed.token, "environment": "sandbox"]).0 == 201)
            tokens.append(installed.token)
            phones.append(phone)
        }
        try await Task.sleep(for: .milliseconds(20))   // the uninstall happens after registration, as on a phone
        for i in [1, 4] { _ = try r.sim.uninstall(bundleID: "com.example.herald", from: phones[i].id) }
        let (accepted, push) = try await r.api.call("POST", "/v1/pushes", key: r.master, ["target": ["all": true], "content": ["alert": "Still there?"]])
        #expect(accepted == 202)
        #expect(try await eventually { !events(r, "push.done").isEmpty })
        let retired = events(r, "installation.retired")
        #expect(Set(retired.compactMap { $0["data"]?["deviceToken"]?.stringValue }) == [tokens[1], tokens[4]])
        #expect(retired.count == 2)
        #expect(retired.allSatisfy { $0["data"]?["reason"] == "Unregistered" && $0["data"]?["timestamp"]?.stringValue != nil })
        #expect(retired.allSatisfy { $0["data"]?["pushId"]?.stringValue == push["id"] as? String })
        #expect(events(r, "push.done").first?["data"]?["counts"]?["retired"] == 2)
        #expect(r.receiver.received.allSatisfy { WebhookReceiver.signatureVerifies($0, secret: r.secret) })
        await stop(r)
    }

    @Test func anOpenOnASimulatedDeviceIsReportedOpened() async throws {
        let r = try await start(store: .sqlite, events: ["notification.opened"])
        let phone = r.sim.createDevice(name: "phone")
        let installed = try r.sim.install(bundleID: "com.example.herald", environment: .sandbox, on: phone.id)
        let (_, installation) = try await r.api.call("POST", "/v1/installations", key: r.client, ["deviceToken": installed.token, "environment": "sandbox"])
        let (_, push) = try await r.api.call("POST", "/v1/pushes", key: r.master, ["target": ["all": true], "content": ["alert": "Open me"]])
        #expect(try await eventually { r.sim.device(phone.id)?.inbox.isEmpty == false })
        let got = try #require(r.sim.device(phone.id)?.inbox.first)
        _ = try r.sim.reportOpened(deviceID: phone.id, apnsID: got.apnsID)
        #expect(try await eventually { !events(r, "notification.opened").isEmpty })
        let opened = try #require(events(r, "notification.opened").first)
        #expect(opened["data"]?["pushId"]?.stringValue == push["id"] as? String)
        #expect(opened["data"]?["installationId"]?.stringValue == installation["id"] as? String)
        #expect(opened["appId"]?.stringValue == r.appID)
        await stop(r)
    }

    @Test func aCredentialTheSimulatorRejectsPausesTheAppAndSaysSo() async throws {
        let r = try await start(store: .sqlite, events: ["app.paused", "credential.rejected", "app.resumed"])
        let phone = r.sim.createDevice(name: "phone")
        let installed = try r.sim.install(bundleID: "com.example.herald", environment: .sandbox, on: phone.id)
        #expect(try await r.api.call("POST", "/v1/installations", key: r.client, ["deviceToken": installed.token, "environment": "sandbox"]).0 == 201)
        // A key the simulator issued, uploaded with the wrong team id: every request is refused (InvalidProviderToken).
        let key = try r.sim.generateSigningKey(bundleIDs: ["com.example.herald"])
        #expect(try await r.api.call("PUT", "/v1/apps/\(r.appID)/credentials/sandbox", key: r.master,
                                     ["type": "token", "keyId": key.keyID, "teamId": "WRONGTEAM1", "key": key.privateKeyPEM]).0 == 200)
        #expect(try await r.api.call("POST", "/v1/pushes", key: r.master, ["target": ["all": true], "content": ["alert": "hi"]]).0 == 202)
        #expect(try await eventually { !events(r, "app.paused").isEmpty && !events(r, "credential.rejected").isEmpty })
        let paused = try #require(events(r, "app.paused").first)
        #expect(paused["data"]?["environment"] == "sandbox")
        #expect(paused["data"]?["reason"] == "InvalidProviderToken")
        #expect(events(r, "credential.rejected").first?["data"]?["reason"] == paused["data"]?["reason"])
        // The fix: the right credential resumes the app, and that is reported too.
        #expect(try await r.api.call("PUT", "/v1/apps/\(r.appID)/credentials/sandbox", key: r.master,
                                     ["type": "token", "keyId": key.keyID, "teamId": key.teamID, "key": key.privateKeyPEM]).0 == 200)
        #expect(try await eventually { events(r, "app.resumed").first?["data"]?["environment"] == "sandbox" })
        #expect(events(r, "app.paused").count == 1, "one pause, reported once")
        await stop(r)
    }
}
