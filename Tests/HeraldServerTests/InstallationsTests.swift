import Foundation
import Testing
@testable import HeraldServer

@Suite struct InstallationsTests {
    @Test(arguments: ServerStore.available) func createThenUpdateReturns201Then200WithTheFullObject(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        let body: JSON = ["installationId": "5B1F0C7E-0000-4000-8000-000000000001", "deviceToken": .string(token(7).uppercased()),
                          "environment": "sandbox", "topic": "com.example.demo", "tags": ["news", "vip"], "alias": "ann",
                          "userId": "u-1", "locale": "fr-FR", "timeZone": "Europe/Paris", "badge": 3, "appVersion": "2.1",
                          "osVersion": "18.2", "deviceModel": "iPhone16,1", "properties": ["plan": "gold", "age": 30]]
        let created = await t.call("POST", "/v1/installations", key: app.client, json: body)
        #expect(created.status == 201)
        let o = created.body
        #expect(o["deviceToken"]?.stringValue == token(7))   // stored lowercased
        #expect(o["environment"] == "sandbox" && o["tags"] == ["news", "vip"] && o["badge"] == 3)
        #expect(o["properties"] == ["plan": "gold", "age": 30])
        #expect(o["active"] == true && o["inactiveReason"] == .null)
        for field in ["id", "createdAt", "updatedAt", "lastSeenAt"] { #expect(o[field]?.stringValue != nil, "\(field)") }
        #expect(o["createdAt"]?.stringValue == "2027-01-15T08:00:00.000Z")

        t.clock.advance(by: 60)
        let again = await t.call("POST", "/v1/installations", key: app.client,
                                 json: ["installationId": "5B1F0C7E-0000-4000-8000-000000000001", "badge": 0, "alias": nil])
        #expect(again.status == 200)
        #expect(again.body["id"] == o["id"])
        #expect(again.body["badge"] == 0 && again.body["alias"] == .null && again.body["userId"] == "u-1")
        #expect(again.body["updatedAt"]?.stringValue == "2027-01-15T08:01:00.000Z")
    }

    @Test(arguments: ServerStore.available) func patchDeleteAndTags(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        let id = try #require(try await t.register(app, "i-1", token: token(1), tags: ["a"])["id"]?.stringValue)
        let patched = await t.call("PATCH", "/v1/installations/\(id)", key: app.client, json: ["locale": "de-DE", "tags": ["x", "y"]])
        #expect(patched.status == 200 && patched.body["locale"] == "de-DE" && patched.body["tags"] == ["x", "y"])
        let tagged = await t.call("POST", "/v1/installations/i-1/tags", key: app.client, json: ["add": ["z"], "remove": ["x"]])
        #expect(tagged.status == 200 && tagged.body["tags"] == ["y", "z"])
        #expect(await t.call("DELETE", "/v1/installations/\(id)", key: app.client).status == 204)
        #expect(await t.call("DELETE", "/v1/installations/\(id)", key: app.client).status == 404)
        #expect(await t.call("PATCH", "/v1/installations/\(id)", key: app.client, json: ["locale": "de"]).status == 404)
    }

    @Test(arguments: [
        (["installationId": "i", "deviceToken": "xyz"] as JSON, "deviceToken", "invalid_device_token"),
        (["installationId": "i", "deviceToken": "abc"] as JSON, "deviceToken", "invalid_device_token"),
        (["installationId": "i", "environment": "development"] as JSON, "environment", "invalid_field"),
        (["installationId": "i", "timeZone": "Mars/Olympus"] as JSON, "timeZone", "invalid_field"),
        (["installationId": "i", "locale": "fr FR"] as JSON, "locale", "invalid_field"),
        (["installationId": "i", "badge": -1] as JSON, "badge", "invalid_field"),
        (["installationId": "i", "badge": .number(1.5)] as JSON, "badge", "invalid_field"),
        (["installationId": "i", "tags": ["has space"]] as JSON, "tags[0]", "invalid_field"),
        (["installationId": "i", "tags": "news"] as JSON, "tags", "invalid_field"),
        (["installationId": "i", "properties": ["nested": ["a": 1]]] as JSON, "properties.nested", "invalid_field"),
        (["installationId": "i", "color": "red"] as JSON, "color", "unknown_field"),
        (["installationId": "bad id!"] as JSON, "installationId", "invalid_field"),
        (["installationId": "i", "alias": "a\u{0}b"] as JSON, "alias", "invalid_field"),
        (["installationId": "i", "deviceModel": "iPhone\u{0}"] as JSON, "deviceModel", "invalid_field"),
        (["alias": "only"] as JSON, "installationId", "missing_field"),
    ])
    func everyInvalidFieldIsA422NamingItAndStoresNothing(body: JSON, field: String, code: String) async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        let r = await t.call("POST", "/v1/installations", key: app.client, json: body)
        #expect(r.status == 422)
        #expect(r.errorField == field)
        #expect(r.errorCode == code)
        #expect(r.body["error"]?["message"]?.stringValue?.isEmpty == false)
        #expect(try await t.service.store.installationCount(appID: app.id) == 0)
    }

    @Test(arguments: ServerStore.available) func queryFiltersAndPaginatesWithACursor(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        for i in 0..<7 {
            try await t.register(app, "i-\(i)", token: token(i), tags: i < 5 ? ["news"] : [], extra: ["alias": .string(i == 3 ? "ann" : "x\(i)")])
        }
        var seen: [String] = []
        var cursor: String? = nil
        repeat {
            let r = await t.call("GET", "/v1/installations?tag=news&limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""), key: app.master)
            #expect(r.status == 200)
            seen += r.body["installations"]?.arrayValue?.compactMap { $0["installationId"]?.stringValue } ?? []
            cursor = r.body["nextCursor"]?.stringValue
        } while cursor != nil
        #expect(seen == ["i-0", "i-1", "i-2", "i-3", "i-4"])
        let byAlias = await t.call("GET", "/v1/installations?alias=ann", key: app.master)
        #expect(byAlias.body["installations"]?.arrayValue?.map { $0["installationId"] } == ["i-3"])
        let byToken = await t.call("GET", "/v1/installations?deviceToken=\(token(6))", key: app.master)
        #expect(byToken.body["installations"]?.arrayValue?.map { $0["installationId"] } == ["i-6"])
        let tags = await t.call("GET", "/v1/tags", key: app.master)
        #expect(tags.body["tags"] == [["tag": "news", "count": 5]])
        let removed = await t.call("DELETE", "/v1/tags/news", key: app.master)
        #expect(removed.body["removed"] == 5)
        #expect(await t.call("GET", "/v1/installations?tag=news", key: app.master).body["installations"] == [])
        #expect(await t.call("GET", "/v1/installations?active=maybe", key: app.master).status == 400)
    }

    @Test(arguments: ServerStore.available) func opensAreIdempotentAndCounted(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        try await t.register(app, "i-1", token: token(1))
        let pushID = try await t.push(app, ["target": ["all": true], "content": ["alert": "hi"]])
        try await t.deliver()
        for _ in 0..<3 {
            let r = await t.call("POST", "/v1/opens", key: app.client, json: ["pushId": .string(pushID), "installationId": "i-1"])
            #expect(r.status == 202)
        }
        #expect(await t.status(app, pushID)["counts"]?["opened"] == 1)
    }
}
