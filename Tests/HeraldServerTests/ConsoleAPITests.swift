import Foundation
import Testing
@testable import HeraldServer

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
}
