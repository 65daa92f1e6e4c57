import Foundation
import Testing
import HeraldHTTP
@testable import HeraldServer

/// A LeanCloud app and backend pointed at Herald: same paths, same fields, same key headers.
@Suite struct LeanCloudCompatTests {
    @Test(arguments: ServerStore.available) func leanCloudInstallationAndPushRequestsWork(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        let saved = await t.call("POST", "/1.1/installations", json: [
            "deviceType": "ios", "deviceToken": .string(token(1).uppercased()), "installationId": "lc-1",
            "channels": ["news"], "timeZone": "Asia/Shanghai", "badge": 0, "apnsTopic": "com.example.demo",
            "apnsTeamId": "TEAM123456", "deviceProfile": "driver_app", "vip": true,
        ], headers: ["X-LC-Id": app.id, "X-LC-Key": app.client])
        #expect(saved.status == 201, "\(saved.text)")
        let objectID = try #require(saved.body["objectId"]?.stringValue)
        let stored = await t.call("GET", "/v1/installations/\(objectID)", key: app.master).body
        #expect(stored["tags"] == ["news"] && stored["timeZone"] == "Asia/Shanghai" && stored["properties"] == ["vip": true])
        #expect(stored["deviceToken"]?.stringValue == token(1))

        let push: JSON = [
            "where": ["channels": "news", "deviceType": "ios"],
            "data": ["alert": ["title": "Hi", "body": "There", "loc-key": "GREETING"], "badge": "Increment", "sound": "default",
                     "thread-id": "news", "collapse-id": "m1", "custom": "x"],
            "prod": "prod", "expiration_interval": 86_400, "req_id": "a1b2c3", "flow_control": 2000,
        ]
        let sent = await t.call("POST", "/1.1/push", json: push, headers: ["X-LC-Key": "\(app.master),master"])
        #expect(sent.status == 200, "\(sent.text)")
        let pushID = try #require(sent.body["objectId"]?.stringValue)
        let again = await t.call("POST", "/1.1/push", json: push, headers: ["X-LC-Key": "\(app.master),master"])
        #expect(again.body["objectId"]?.stringValue == pushID)   // req_id de-duplicates
        try await t.deliver()
        let n = try #require(t.transport.notifications.first)
        #expect(t.transport.notifications.count == 1)
        let p = payload(n)
        #expect(p["aps"]?["alert"] == ["title": "Hi", "body": "There", "loc-key": "GREETING"])
        #expect(p["aps"]?["badge"] == 1 && p["aps"]?["thread-id"] == "news" && p["custom"] == "x")
        #expect(n.collapseID == "m1" && n.expiration != nil)
    }

    @Test func unsupportedQueriesAndKeysAreRefusedClearly() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        let query = await t.call("POST", "/1.1/push", json: ["where": ["age": ["$gt": 3]], "data": ["alert": "x"]],
                                 headers: ["X-LC-Key": "\(app.master),master"])
        #expect(query.status == 422 && query.errorField == "where.age")
        let android = await t.call("POST", "/1.1/installations", json: ["deviceType": "android", "installationId": "a"],
                                   headers: ["X-LC-Key": app.client])
        #expect(android.status == 422 && android.errorField == "deviceType")
        // The client key cannot push, in either dialect.
        #expect(await t.call("POST", "/1.1/push", json: ["data": ["alert": "x"]], headers: ["X-LC-Key": app.client]).status == 403)
    }
}
