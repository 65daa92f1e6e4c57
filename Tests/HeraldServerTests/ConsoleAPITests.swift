import Foundation
import Testing
import HeraldHTTP
@testable import HeraldServer
import HeraldProvider

/// What the console added to the REST API: the dry run's exact payload per variant with its headers, and
/// an app's statistics over time.
@Suite struct ConsoleAPITests {
    @Test func aDryRunShowsEachVariantsExactPayloadItsSizeAndTheHeaders() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        try await t.register(app, "phone", token: token(1), tags: ["beta"])
        let r = await t.call("POST", "/v1/pushes", key: app.master, json: [
            "target": ["tags": ["beta"]], "dryRun": true,
            "content": ["alert": ["title": "Hello", "body": "World"], "localized": ["zh-Hans": ["title": "你好"]], "badge": ["increment": 2]],
            "options": ["collapseId": "c1", "ttl": 60],
        ])
        #expect(r.status == 200 && r.body["audience"] == 1 && r.body["payloadLimit"] == 4096, "\(r.text)")
        let variants = try #require(r.body["variants"]?.arrayValue)
        #expect(variants.compactMap { $0["locale"]?.stringValue } == ["", "zh-Hans"])
        let zh = try #require(variants.last)
        #expect(zh["payload"]?["aps"]?["alert"]?["title"] == "你好" && zh["payload"]?["aps"]?["alert"]?["body"] == "World")
        #expect(zh["payload"]?["aps"]?["badge"] == 2)
        #expect(zh["bytes"]?.intValue == zh["payload"].map { JSON.object($0.objectValue ?? [:]).bytes.count })
        #expect(r.body["headers"]?["apns-topic"] == "com.example.demo" && r.body["headers"]?["apns-collapse-id"] == "c1")
        #expect(r.body["headers"]?["apns-push-type"] == "alert" && r.body["headers"]?["apns-expiration"] != nil)
        #expect(await t.call("GET", "/v1/pushes", key: app.master).body["pushes"]?.arrayValue?.isEmpty == true, "a dry run stores nothing")
    }

    @Test func statisticsCountAnAppsDeliveriesPerIntervalAndItsInstallations() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        try await t.register(app, "a", token: token(1))
        try await t.register(app, "b", token: token(2))
        t.transport.answer { n in n.deviceToken == token(2) ? DeliveryResult(id: n.id, status: 410, reason: "Unregistered") : DeliveryResult(id: n.id, status: 200) }
        _ = try await t.push(app, ["target": ["all": true], "content": ["alert": "Hi"]])
        try await t.deliver()
        let r = await t.call("GET", "/v1/stats?interval=hour&limit=3", key: app.master)
        #expect(r.status == 200, "\(r.text)")
        let buckets = try #require(r.body["buckets"]?.arrayValue)
        #expect(buckets.count == 3)
        #expect(buckets.last?["sent"] == 1 && buckets.last?["failed"] == 1 && buckets.last?["failedByReason"] == ["Unregistered": 1])
        #expect(buckets.first?["pushes"] == 0)
        #expect(r.body["installations"] == ["active": 1, "retired": 1])
        #expect(await t.call("GET", "/v1/stats?interval=week", key: app.master).errorField == "interval")
        #expect(await t.call("GET", "/v1/stats", key: testAdminKey).status == 403)
    }

    /// The built-in simulator through the service's own routes: an app sees the devices it is installed on and
    /// its own notifications only, and opening one counts on the push.
    @Test func theSimulatorRoutesShowAnAppItsOwnDevicesAndNotifications() async throws {
        var settings = ProviderServer.Settings()
        settings.port = 0
        settings.simulatorInspectionPort = nil
        settings.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-simroutes-\(UUID().uuidString)").path
        settings.service.databasePath = settings.dataDirectory + "/herald.sqlite"
        settings.service.adminKey = testAdminKey
        settings.service.pollInterval = 0.05
        let server = try await ProviderServer.start(settings, log: { _, _ in })
        defer { try? FileManager.default.removeItem(atPath: settings.dataDirectory) }
        let simulator = try #require(server.simulator)
        let master = try #require(server.bootstrap.masterKey), client = try #require(server.bootstrap.clientKey)
        let phone = simulator.createDevice(name: "Phone")
        let token = try simulator.install(bundleID: settings.defaultBundleID, environment: .sandbox, on: phone.id).token
        let call = { (method: String, path: String, key: String, body: JSON?) async -> (Int, JSON) in
            let r = await server.service.handler(HTTPRequest(method: method, target: path, headers: ["authorization": "Bearer \(key)", "content-type": "application/json"],
                                                             body: body?.bytes ?? [], remoteAddress: "127.0.0.1:1"))
            return (r.status, (try? JSON(parsing: r.body)) ?? .null)
        }
        #expect(await call("POST", "/v1/installations", client, ["deviceToken": .string(token), "environment": "sandbox"]).0 == 201)
        let other = await call("POST", "/v1/apps", testAdminKey, ["name": "Other", "topic": "com.example.other"]).1
        let otherMaster = try #require(other["keys"]?["master"]?.stringValue)

        let pushID = try #require(await call("POST", "/v1/pushes", master, ["target": ["all": true], "content": ["alert": "Hi"]]).1["id"]?.stringValue)
        var received: [JSON] = []
        let deadline = Date().addingTimeInterval(30)
        while received.isEmpty && Date() < deadline {
            received = await call("GET", "/v1/simulator/devices/\(phone.id)/notifications", master, nil).1["notifications"]?.arrayValue ?? []
            if received.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        let apnsID = try #require(received.first?["apnsId"]?.stringValue)
        #expect(await call("GET", "/v1/simulator/devices", master, nil).1["devices"]?.arrayValue?.count == 1)
        // Another app sees neither the device nor its notifications, and cannot open them.
        #expect(await call("GET", "/v1/simulator/devices", otherMaster, nil).1["devices"]?.arrayValue?.isEmpty == true)
        #expect(await call("GET", "/v1/simulator/devices/\(phone.id)/notifications", otherMaster, nil).0 == 404)
        #expect(await call("POST", "/v1/simulator/devices/\(phone.id)/opened", otherMaster, ["apnsId": .string(apnsID)]).0 == 404)

        #expect(await call("POST", "/v1/simulator/devices/\(phone.id)/opened", master, ["apnsId": .string(apnsID)]).0 == 201)
        var opened = 0
        while opened == 0 && Date() < deadline.addingTimeInterval(30) {
            opened = await call("GET", "/v1/pushes/\(pushID)", master, nil).1["counts"]?["opened"]?.intValue ?? 0
            if opened == 0 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(opened == 1)
        await server.stop()
    }
}
