import Foundation
import Testing
import HeraldHTTP
import HeraldSimulator
import HeraldTestSupport
@testable import HeraldServer
import HeraldProvider

/// The whole loop over real sockets: `herald serve`'s stack (HTTP server, service, APNs client over
/// TLS/HTTP/2) delivering to the built-in simulator, as `make run` starts it.
@Suite struct EndToEndTests {
    struct API {
        let client: HTTP1Client
        func call(_ method: String, _ path: String, key: String, _ json: [String: Any]? = nil) async throws -> (Int, [String: Any]) {
            var headers: HTTPHeaders = ["authorization": "Bearer \(key)"]
            var body: [UInt8] = []
            if let json { body = [UInt8](try JSONSerialization.data(withJSONObject: json)); headers.add("content-type", "application/json") }
            let r = try await client.send(HTTPRequest(method: method, target: path, headers: headers, body: body))
            return (r.status, (try? JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any]) ?? [:])
        }
    }

    func start(store: ServerStore = .sqlite) async throws -> (ProviderServer, API) {
        var settings = ProviderServer.Settings()
        settings.port = 0
        settings.simulatorInspectionPort = nil
        settings.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-e2e-\(UUID().uuidString)").path
        settings.service.databasePath = settings.dataDirectory + "/herald.sqlite"
        settings.service.storeURL = try await store.storeURL()
        settings.service.pollInterval = 0.05
        let server = try await ProviderServer.start(settings, log: { _, _ in })
        return (server, API(client: HTTP1Client(host: "127.0.0.1", port: server.port)))
    }

    /// A simulated phone with the default app installed, registered with the default app's client key; the
    /// simulator and the master key come along for pushing to it.
    func registeredPhone(_ server: ProviderServer, _ api: API) async throws -> (Simulator, Device, masterKey: String) {
        let sim = try #require(server.simulator)
        let clientKey = try #require(server.bootstrap.clientKey), masterKey = try #require(server.bootstrap.masterKey)
        let phone = sim.createDevice()
        let app = try sim.install(bundleID: "com.example.herald", environment: .sandbox, on: phone.id)
        #expect(try await api.call("POST", "/v1/installations", key: clientKey, ["deviceToken": app.token, "environment": "sandbox"]).0 == 201)
        return (sim, phone, masterKey)
    }

    func waitFor(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<200 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test(arguments: ServerStore.available) func registerPushByTagReceiveOpenAndCount(_ store: ServerStore) async throws {
        let (server, api) = try await start(store: store)
        defer { Task { await server.stop() } }
        let sim = try #require(server.simulator)
        let boot = server.bootstrap
        let clientKey = try #require(boot.clientKey), masterKey = try #require(boot.masterKey)
        #expect(boot.adminKey != nil, "first start prints an admin key")
        let health = try await api.client.send(HTTPRequest(method: "GET", target: "/healthz"))
        #expect(String(decoding: health.body, as: UTF8.self).contains("built-in APNs simulator"), "the API says where pushes go")

        let phone = sim.createDevice(name: "phone")
        let app = try sim.install(bundleID: "com.example.herald", environment: .sandbox, on: phone.id)
        let other = sim.createDevice(name: "not subscribed")
        let otherApp = try sim.install(bundleID: "com.example.herald", environment: .sandbox, on: other.id)

        let (created, installation) = try await api.call("POST", "/v1/installations", key: clientKey,
            ["deviceToken": app.token, "environment": "sandbox", "tags": ["news"], "locale": "zh-Hans_CN"])
        #expect(created == 201)
        #expect(try await api.call("POST", "/v1/installations", key: clientKey,
            ["deviceToken": otherApp.token, "environment": "sandbox", "tags": ["sports"]]).0 == 201)

        let (accepted, push) = try await api.call("POST", "/v1/pushes", key: masterKey, [
            "target": ["tags": ["news"]],
            "content": ["alert": ["title": "头条", "body": "Herald works"], "localized": ["en": ["body": "English body"]],
                        "badge": ["increment": 1], "data": ["url": "https://example.com/a"]]])
        #expect(accepted == 202)
        let pushID = try #require(push["id"] as? String)

        #expect(try await waitFor { sim.device(phone.id)?.inbox.isEmpty == false })
        let got = try #require(sim.device(phone.id)?.inbox.first)
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(got.payload)) as? [String: Any])
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect((aps["alert"] as? [String: Any])?["body"] as? String == "Herald works", "zh-Hans device gets the default alert")
        #expect(aps["badge"] as? Int == 1)
        #expect((payload["herald"] as? [String: Any])?["pushId"] as? String == pushID)
        #expect(sim.device(other.id)?.inbox.isEmpty == true, "only the tagged device")

        _ = try sim.reportOpened(deviceID: phone.id, apnsID: got.apnsID)
        #expect(try await waitFor {
            let status = try await api.call("GET", "/v1/pushes/\(pushID)", key: masterKey).1
            let counts = status["counts"] as? [String: Any]
            return status["status"] as? String == "done" && counts?["sent"] as? Int == 1 && counts?["opened"] as? Int == 1
        })
        _ = installation
    }

    /// Issue #13: the server built the topic itself and left out the widgets and controls suffixes, so APNs
    /// (here the simulator) answered BadTopic although the dry run accepted the push.
    @Test(arguments: ["widgets", "controls"])
    func suffixedPushTypesReachTheDevice(pushType: String) async throws {
        let (server, api) = try await start()
        defer { Task { await server.stop() } }
        let (sim, phone, masterKey) = try await registeredPhone(server, api)

        let (accepted, push) = try await api.call("POST", "/v1/pushes", key: masterKey, [
            "target": ["all": true], "content": ["data": ["reload": true]], "options": ["pushType": pushType]])
        #expect(accepted == 202, "\(push)")
        let pushID = try #require(push["id"] as? String)
        #expect(try await waitFor {
            let status = try await api.call("GET", "/v1/pushes/\(pushID)", key: masterKey).1
            return status["status"] as? String == "done"
        })
        let status = try await api.call("GET", "/v1/pushes/\(pushID)", key: masterKey).1
        #expect((status["counts"] as? [String: Any])?["sent"] as? Int == 1, "\(status)")
        let got = try #require(sim.device(phone.id)?.inbox.first)
        #expect(got.pushType == pushType)
        #expect(got.topic == "com.example.herald.push-type.\(pushType)")
    }

    /// Issue #13: Live Activity content was refused as unknown fields. A push-to-start with its attributes and
    /// an update with a content state reach the device under the liveactivity topic, keys as Apple names them.
    @Test func liveActivityPushesReachTheDevice() async throws {
        let (server, api) = try await start()
        defer { Task { await server.stop() } }
        let (sim, phone, masterKey) = try await registeredPhone(server, api)

        let start: [String: Any] = [
            "alert": ["title": "Kick-off", "body": "The match starts"], "event": "start", "timestamp": 1_800_000_000,
            "attributesType": "MatchAttributes", "attributes": ["home": "Lyon", "away": "Nantes"],
            "contentState": ["home": 0, "away": 0], "staleDate": "2027-01-15T10:00:00Z", "relevanceScore": 50,
        ]
        let (accepted, push) = try await api.call("POST", "/v1/pushes", key: masterKey, [
            "target": ["all": true], "content": start, "options": ["pushType": "liveactivity", "priority": 5]])
        #expect(accepted == 202, "\(push)")
        let (updated, _) = try await api.call("POST", "/v1/pushes", key: masterKey, [
            "target": ["all": true],
            "content": ["event": "end", "timestamp": 1_800_000_060, "contentState": ["home": 2, "away": 1], "dismissalDate": 1_800_003_600,
                        "filterCriteria": "sports"]])
        #expect(updated == 202, "the push type follows from content.event")
        #expect(try await waitFor { (sim.device(phone.id)?.inbox.count ?? 0) == 2 })
        let inbox = try #require(sim.device(phone.id)?.inbox)
        let sorted = inbox.sorted { a, b in a.payload.count > b.payload.count }
        for got in sorted {
            #expect(got.pushType == "liveactivity")
            #expect(got.topic == "com.example.herald.push-type.liveactivity")
        }
        #expect(sorted.first?.priority == 5 && sorted.last?.priority == 10)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(sorted[0].payload)) as? [String: Any])
        let aps = try #require(first["aps"] as? [String: Any])
        #expect(aps["event"] as? String == "start" && aps["timestamp"] as? Int == 1_800_000_000)
        #expect(aps["attributes-type"] as? String == "MatchAttributes")
        #expect((aps["attributes"] as? [String: Any])?["home"] as? String == "Lyon")
        #expect((aps["content-state"] as? [String: Any])?["away"] as? Int == 0)
        #expect(aps["stale-date"] as? Int == 1_800_007_200 && aps["relevance-score"] as? Int == 50)
        let second = try #require(try JSONSerialization.jsonObject(with: Data(sorted[1].payload)) as? [String: Any])
        let end = try #require(second["aps"] as? [String: Any])
        #expect(end["event"] as? String == "end" && end["dismissal-date"] as? Int == 1_800_003_600)
        #expect(end["filter-criteria"] as? String == "sports" && (end["content-state"] as? [String: Any])?["home"] as? Int == 2)
    }

    /// Issue #13: `herald sim --opened-callback` was documented as feeding herald serve's open tracking, but
    /// /v1/opens refused the report (401 without a key, 422 apnsId with one). The documented setup: herald serve
    /// delivering to a standalone simulator (`apns.sandboxEndpoint`), which POSTs opens with the client key.
    @Test func aStandaloneSimulatorsOpenedCallbackCountsTheOpen() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-opens-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let simulatorPort = FreePort.next()  // the server's settings name it before the simulator starts

        var settings = ProviderServer.Settings()
        settings.port = 0
        settings.simulatorEnabled = false
        settings.dataDirectory = directory.path
        settings.service.databasePath = directory.appendingPathComponent("herald.sqlite").path
        settings.service.pollInterval = 0.05
        settings.service.adminKey = testAdminKey
        settings.apns = .init(sandbox: .custom(host: "127.0.0.1", port: simulatorPort), production: .production,
                              caFile: directory.appendingPathComponent("sim-ca.pem").path)
        let server = try await ProviderServer.start(settings, log: { _, _ in })
        defer { Task { await server.stop() } }
        let api = API(client: HTTP1Client(host: "127.0.0.1", port: server.port))
        let (_, app) = try await api.call("POST", "/v1/apps", key: testAdminKey, ["name": "Standalone", "topic": "com.example.standalone"])
        let appID = try #require(app["id"] as? String)
        let keys = try #require(app["keys"] as? [String: Any])
        let master = try #require(keys["master"] as? String), client = try #require(keys["client"] as? String)

        var simConfig = SimulatorConfiguration()
        simConfig.dataDirectory = directory.appendingPathComponent("sim")
        simConfig.sandboxPort = simulatorPort
        simConfig.productionPort = nil
        simConfig.inspectionPort = nil
        simConfig.openedCallbackURL = URL(string: "http://127.0.0.1:\(server.port)/v1/opens")
        simConfig.openedCallbackKey = client
        let sim = try Simulator(configuration: simConfig)
        _ = try await sim.start()
        defer { Task { await sim.stop() } }
        try sim.certificateAuthority().certificate.pem.write(to: directory.appendingPathComponent("sim-ca.pem"), atomically: true, encoding: .utf8)
        let signing = try sim.generateSigningKey(bundleIDs: ["com.example.standalone"])
        #expect(try await api.call("PUT", "/v1/apps/\(appID)/credentials/sandbox", key: master,
                                   ["type": "token", "keyId": signing.keyID, "teamId": signing.teamID, "key": signing.privateKeyPEM]).0 == 200)
        let phone = sim.createDevice()
        let installed = try sim.install(bundleID: "com.example.standalone", environment: .sandbox, on: phone.id)
        #expect(try await api.call("POST", "/v1/installations", key: client, ["deviceToken": installed.token, "environment": "sandbox"]).0 == 201)

        let (_, push) = try await api.call("POST", "/v1/pushes", key: master, ["target": ["all": true], "content": ["alert": "Open me"]])
        let pushID = try #require(push["id"] as? String)
        #expect(try await waitFor { sim.device(phone.id)?.inbox.isEmpty == false })
        let got = try #require(sim.device(phone.id)?.inbox.first)
        _ = try sim.reportOpened(deviceID: phone.id, apnsID: got.apnsID)
        #expect(try await waitFor {
            let counts = try await api.call("GET", "/v1/pushes/\(pushID)", key: master).1["counts"] as? [String: Any]
            return counts?["opened"] as? Int == 1
        })

        // A report of a notification Herald did not send says so.
        let foreign: [String: Any] = ["deviceId": phone.id, "bundleId": "com.example.standalone", "deviceToken": installed.token,
                                      "apnsId": UUID().uuidString.lowercased(), "openedAt": "2027-01-15T08:00:00.000Z", "custom": ["other": 1]]
        let (status, error) = try await api.call("POST", "/v1/opens", key: client, foreign)
        #expect(status == 422 && (error["error"] as? [String: Any])?["field"] as? String == "custom.herald.pushId")
    }

    @Test func anUninstalledAppsTokenIsRetiredAndReactivatedOnReRegistration() async throws {
        let (server, api) = try await start()
        defer { Task { await server.stop() } }
        let sim = try #require(server.simulator)
        let clientKey = try #require(server.bootstrap.clientKey), masterKey = try #require(server.bootstrap.masterKey)
        let phone = sim.createDevice()
        let app = try sim.install(bundleID: "com.example.herald", environment: .sandbox, on: phone.id)
        let (_, installation) = try await api.call("POST", "/v1/installations", key: clientKey, ["deviceToken": app.token, "environment": "sandbox"])
        let id = try #require(installation["id"] as? String)
        _ = try sim.uninstall(bundleID: "com.example.herald", from: phone.id)

        let (_, push) = try await api.call("POST", "/v1/pushes", key: masterKey, ["target": ["all": true], "content": ["alert": "hello?"]])
        let pushID = try #require(push["id"] as? String)
        #expect(try await waitFor {
            let counts = try await api.call("GET", "/v1/pushes/\(pushID)", key: masterKey).1["counts"] as? [String: Any]
            return counts?["retired"] as? Int == 1
        })
        let retired = try await api.call("GET", "/v1/installations/\(id)", key: masterKey).1
        #expect(retired["active"] as? Bool == false)
        #expect(retired["inactiveReason"] as? String == "Unregistered")

        // The app registers the same token again (a later registration than the 410): active again.
        try await Task.sleep(for: .milliseconds(20))
        _ = try await api.call("POST", "/v1/installations", key: clientKey, ["deviceToken": app.token, "environment": "sandbox"])
        #expect(try await api.call("GET", "/v1/installations/\(id)", key: masterKey).1["active"] as? Bool == true)
    }
}
