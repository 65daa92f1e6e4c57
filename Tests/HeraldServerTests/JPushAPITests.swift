import Foundation
import Testing
import HeraldHTTP
@testable import HeraldServer

/// The JPush-compatible API at the request level: the JSON shapes JPush's Java and Node SDKs send (which
/// the Python SDK never does), JPush's errors and codes, cid idempotency, schedules, and the keys routes.
/// The Python SDK itself runs against a live server in JPushSDKTests.
@Suite struct JPushAPITests {
    static let appKey = "0123456789abcdef01234567", masterSecret = "fedcba9876543210fedcba98"

    struct JPush {
        let t: TestService
        let app: TestService.App
        var authorization: String

        func call(_ method: String, _ path: String, _ json: JSON? = nil) async -> TestService.Reply {
            await t.call(method, path, json: json, headers: ["authorization": authorization])
        }
    }

    static func basic(_ user: String, _ password: String) -> String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }

    /// An app with JPush keys and three devices: a (news, sports; alias alice; sandbox), b (news; alias bob), c (no tags).
    func start(store: ServerStore = .sqlite) async throws -> JPush {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        let keys = await t.call("PUT", "/v1/apps/\(app.id)/jpush", key: app.master, json: ["appKey": .string(Self.appKey), "masterSecret": .string(Self.masterSecret)])
        #expect(keys.status == 200, "\(keys.text)")
        try await t.register(app, "a", token: token(1), tags: ["news", "sports"], extra: ["alias": "alice", "environment": "sandbox"])
        try await t.register(app, "b", token: token(2), tags: ["news"], extra: ["alias": "bob"])
        try await t.register(app, "c", token: token(3))
        return JPush(t: t, app: app, authorization: Self.basic(Self.appKey, Self.masterSecret))
    }

    /// The installations (a, b, c) the pushes reached, after the first `skipping` notifications.
    func reached(_ j: JPush, skipping: Int = 0) async throws -> Set<String> {
        try await j.t.deliver()
        let names = [token(1): "a", token(2): "b", token(3): "c"]
        return Set(j.t.transport.notifications.dropFirst(skipping).compactMap { names[$0.deviceToken] })
    }

    @Test func keysAreSealedShownAsHintsAndAuthenticateJPushCalls() async throws {
        let j = try await start()
        let shown = await j.t.call("GET", "/v1/apps/\(j.app.id)/jpush", key: j.app.master)
        #expect(shown.body["appKey"]?.stringValue == Self.appKey)
        #expect(shown.body["masterSecretHint"]?.stringValue == "fedc…")
        #expect(!shown.text.contains(Self.masterSecret), "the secret is never returned")

        #expect(await j.call("GET", "/v3/tags").status == 200)
        var wrong = j
        wrong.authorization = Self.basic(Self.appKey, "not-the-secret")
        let refused = await wrong.call("GET", "/v3/tags")
        #expect(refused.status == 401)
        #expect(refused.body["error"]?["code"] == 7004, "the device API's auth code")
        let refusedPush = await wrong.call("POST", "/v3/push", ["platform": "all", "audience": "all", "notification": ["alert": "x"]])
        #expect(refusedPush.status == 401 && refusedPush.body["error"]?["code"] == 1004)

        // The Herald app id and master key work as appKey and masterSecret; a client key does not.
        var herald = j
        herald.authorization = Self.basic(j.app.id, j.app.master)
        #expect(await herald.call("GET", "/v3/tags").status == 200)
        herald.authorization = Self.basic(j.app.id, j.app.client)
        #expect(await herald.call("GET", "/v3/tags").status == 401)

        #expect(await j.t.call("DELETE", "/v1/apps/\(j.app.id)/jpush", key: j.app.master).status == 204)
        #expect(await j.call("GET", "/v3/tags").status == 401, "deleted keys stop working")
        #expect(await j.t.call("GET", "/v1/apps/\(j.app.id)/jpush", key: j.app.master).status == 404)
    }

    /// The Java SDK sends badge "+1" and may send sound as an object; the Node SDK leaves apns_production out.
    @Test func javaAndNodeShapesBecomeTheRightAPNsPayload() async throws {
        let j = try await start()
        let sent = await j.call("POST", "/v3/push", [
            "platform": ["android", "ios"], "audience": ["tag": ["news"]],
            "notification": ["alert": "shared", "android": ["alert": "ignored"], "ios": [
                "alert": ["title": "T", "body": "B", "loc-key": "K"], "sound": ["name": "a.caf", "critical": 1, "volume": .number(0.5)],
                "badge": "+1", "content-available": true, "mutable-content": true, "category": "c", "thread-id": "t",
                "interruption-level": "time-sensitive", "extras": ["news_id": 134, "url": "https://example.com"]]],
            "options": ["sendno": 18, "apns_collapse_id": "k1", "time_to_live": 60],
        ])
        #expect(sent.status == 200, "\(sent.text)")
        #expect(sent.body["sendno"]?.stringValue == "18")
        let msgID = try #require(sent.body["msg_id"]?.stringValue)
        #expect(Int64(msgID) != nil, "msg_id is digits: the SDKs read it as a 64-bit integer")
        #expect(sent.body["ignored"] == ["notification.android"])
        #expect(try await reached(j) == ["a", "b"], "no apns_production: each device in its own environment")

        let n = try #require(j.t.transport.notifications.first)
        let p = payload(n)
        #expect(p["aps"]?["alert"] == ["title": "T", "body": "B", "loc-key": "K"])
        #expect(p["aps"]?["sound"] == ["name": "a.caf", "critical": 1, "volume": .number(0.5)])
        #expect(p["aps"]?["badge"] == 1, "+1 on a stored badge of 0")
        #expect(p["aps"]?["content-available"] == 1 && p["aps"]?["mutable-content"] == 1)
        #expect(p["aps"]?["category"] == "c" && p["aps"]?["thread-id"] == "t" && p["aps"]?["interruption-level"] == "time-sensitive")
        #expect(p["news_id"] == 134 && p["url"] == "https://example.com", "extras at the payload's top level")
        #expect(p["_j_msgid"]?.intValue.map(String.init) == msgID)
        #expect(n.collapseID == "k1" && n.expiration != nil)
        // The push is a Herald push: its status is under the msg_id.
        #expect(await j.t.call("GET", "/v1/pushes/\(msgID)", key: j.app.master).body["counts"]?["sent"] == 2)

        // A numeric badge sets it; "-N" lowers the stored one; apns_production picks the environment.
        let set = await j.call("POST", "/v3/push", ["platform": "ios", "audience": ["registration_id": ["b"]],
                                                     "notification": ["ios": ["alert": "x", "badge": 5, "sound": "default"]],
                                                     "options": ["apns_production": true]])
        #expect(set.status == 200, "\(set.text)")
        try await j.t.deliver()   // the stored badge is 5 before the next push counts from it
        let lower = await j.call("POST", "/v3/push", ["platform": "ios", "audience": ["registration_id": ["b"]],
                                                       "notification": ["ios": ["alert": "y", "badge": "-2"]]])
        #expect(lower.status == 200, "\(lower.text)")
        try await j.t.deliver()
        let badges = j.t.transport.notifications.filter { $0.deviceToken == token(2) }.map { payload($0)["aps"]?["badge"] }
        #expect(badges == [1, 5, 3])
        let sandboxOnly = await j.call("POST", "/v3/push", ["platform": "all", "audience": ["registration_id": ["b"]],
                                                            "notification": ["alert": "z"], "options": ["apns_production": false]])
        #expect(sandboxOnly.body["error"]?["code"] == 1011, "b is a production device")
    }

    @Test func audiencesCombineWithAndAsJPushDoes() async throws {
        let j = try await start()
        func push(_ audience: JSON) async throws -> Set<String> {
            let before = j.t.transport.notifications.count
            let r = await j.call("POST", "/v3/push", ["platform": "all", "audience": audience, "notification": ["alert": "x"]])
            #expect(r.status == 200, "\(audience): \(r.text)")
            return try await reached(j, skipping: before)
        }
        #expect(try await push("all") == ["a", "b", "c"])
        #expect(try await push(["tag": ["sports", "nothing"]]) == ["a"])
        #expect(try await push(["tag_and": ["news", "sports"]]) == ["a"])
        #expect(try await push(["tag": ["news"], "tag_not": ["sports"]]) == ["b"])
        #expect(try await push(["tag_not": ["news"]]) == ["c"])
        #expect(try await push(["alias": ["alice", "bob"]]) == ["a", "b"])
        #expect(try await push(["alias": ["alice", "bob"], "registration_id": ["b", "c"]]) == ["b"], "alias AND registration_id")
        #expect(try await push(["alias": ["alice", "bob"], "tag_not": ["sports"]]) == ["b"])
        let noOne = await j.call("POST", "/v3/push", ["platform": "all", "audience": ["alias": ["alice"], "registration_id": ["c"]], "notification": ["alert": "x"]])
        #expect(noOne.status == 400 && noOne.body["error"]?["code"] == 1011)
    }

    @Test func messageIsABackgroundPushCarryingItsContent() async throws {
        let j = try await start()
        let r = await j.call("POST", "/v3/push", ["platform": "ios", "audience": ["registration_id": ["c"]],
                                                   "message": ["msg_content": "sync now", "title": "t", "content_type": "text", "extras": ["k": "v"]]])
        #expect(r.status == 200, "\(r.text)")
        try await j.t.deliver()
        let n = try #require(j.t.transport.notifications.first)
        #expect(n.pushType == "background" && n.priority == 5)
        let p = payload(n)
        #expect(p["aps"] == ["content-available": 1])
        #expect(p["message"] == ["content": "sync now", "title": "t", "content_type": "text", "extras": ["k": "v"]])
    }

    @Test func errorsCarryJPushCodesAndStatuses() async throws {
        let j = try await start()
        func error(_ body: JSON, path: String = "/v3/push") async -> (Int, Int?, String) {
            let r = await j.call("POST", path, body)
            return (r.status, r.body["error"]?["code"]?.intValue, r.body["error"]?["message"]?.stringValue ?? "")
        }
        let alert: JSON = ["alert": "x"]
        #expect(await error(["platform": "all", "notification": alert]).1 == 1002, "no audience")
        #expect(await error(["platform": "all", "audience": "all"]).1 == 1002, "no notification or message")
        let android = await error(["platform": ["android"], "audience": "all", "notification": alert])
        #expect(android.0 == 400 && android.1 == 1003 && android.2.contains("iOS"))
        let segment = await error(["platform": "all", "audience": ["segment": ["s1"]], "notification": alert])
        #expect(segment.1 == 1003 && segment.2.contains("segment"))
        #expect(await error(["platform": "all", "audience": ["tag": ["nobody"]], "notification": alert]).1 == 1011)
        #expect(await error(["platform": "all", "audience": "all", "notification": ["ios": ["alert": "x", "badge": "+x"]]]).1 == 1003)
        let unknown = await error(["platform": "all", "audience": "all", "notification": alert, "surprise": 1])
        #expect(unknown.0 == 400 && unknown.1 == 1003)
        let big = await error(["platform": "all", "audience": "all", "notification": ["ios": ["alert": .string(String(repeating: "x", count: 5000))]]])
        #expect(big.0 == 400 && big.1 == 1005)
        let notJSON = await j.t.call("POST", "/v3/push", raw: Array("{".utf8), headers: ["authorization": j.authorization])
        #expect(notJSON.status == 400 && notJSON.body["error"]?["code"] == 1003)
        let device = await j.call("GET", "/v3/devices/nobody")
        #expect(device.status == 400 && device.body["error"]?["code"] == 7002)
        #expect(await j.call("GET", "/v3/schedules/nothing").body["error"]?["code"] == 8104)
        // Nothing was stored by any refused push.
        #expect(await j.t.call("GET", "/v1/pushes", key: j.app.master).body["pushes"] == [])
    }

    @Test func aRepeatedCidReturnsTheFirstPushAndSendsOnce() async throws {
        let j = try await start()
        let cids = await j.call("GET", "/v3/push/cid?count=2")
        let list = try #require(cids.body["cidlist"]?.arrayValue).compactMap(\.stringValue)
        #expect(list.count == 2 && Set(list).count == 2 && list.allSatisfy { $0.hasPrefix(Self.appKey + "-") })
        let body: JSON = ["cid": .string(list[0]), "platform": "all", "audience": "all", "notification": ["alert": "once"]]
        let first = await j.call("POST", "/v3/push", body)
        let again = await j.call("POST", "/v3/push", body)
        #expect(first.status == 200 && again.status == 200)
        #expect(first.body["msg_id"] != nil && first.body["msg_id"] == again.body["msg_id"])
        let other = await j.call("POST", "/v3/push", ["cid": .string(list[1]), "platform": "all", "audience": "all", "notification": ["alert": "once"]])
        #expect(other.body["msg_id"] != first.body["msg_id"])
        try await j.t.deliver()
        #expect(j.t.transport.notifications.filter { payload($0)["aps"]?["alert"] == "once" }.count == 6, "two pushes to three devices")
    }

    @Test(arguments: ServerStore.available) func schedulesCreateListUpdateAndDelete(_ store: ServerStore) async throws {
        let j = try await start(store: store)
        // TestService's clock is 2027-01-15T08:00:00Z = 16:00 in Beijing.
        let push: JSON = ["platform": "all", "audience": ["tag": ["news"]], "notification": ["alert": "scheduled"]]
        let created = await j.call("POST", "/v3/schedules", ["name": "evening", "enabled": true, "trigger": ["single": ["time": "2027-01-15 20:00:00"]], "push": push])
        #expect(created.status == 200, "\(created.text)")
        let id = try #require(created.body["schedule_id"]?.stringValue)
        #expect(created.body["name"] == "evening")
        let got = await j.call("GET", "/v3/schedules/\(id)")
        #expect(got.body["trigger"] == ["single": ["time": "2027-01-15 20:00:00"]] && got.body["push"] == push && got.body["enabled"] == true)
        let scheduled = await j.t.call("GET", "/v1/pushes?status=scheduled", key: j.app.master).body["pushes"]?.arrayValue ?? []
        #expect(scheduled.count == 1 && scheduled.first?["sendAt"]?.stringValue.flatMap(ISO8601.parse) == ISO8601.parse("2027-01-15T12:00:00Z"), "20:00 China Standard Time")

        let periodical = await j.call("POST", "/v3/schedules", ["name": "daily", "enabled": true,
            "trigger": ["periodical": ["start": "2027-01-15 00:00:00", "end": "2027-02-15 00:00:00", "time": "09:00:00", "time_unit": "day", "frequency": 1]], "push": push])
        #expect(periodical.status == 400 && periodical.body["error"]?["code"] == 8100)
        #expect(periodical.body["error"]?["message"]?.stringValue?.contains("periodical") == true)
        let past = await j.call("POST", "/v3/schedules", ["name": "past", "enabled": true, "trigger": ["single": ["time": "2027-01-15 10:00:00"]], "push": push])
        #expect(past.body["error"]?["code"] == 8100)

        // Renaming and moving replaces the pending push; the list shows the new fields.
        let updated = await j.call("PUT", "/v3/schedules/\(id)", ["name": "late", "trigger": ["single": ["time": "2027-01-15 21:00:00"]]])
        #expect(updated.status == 200 && updated.body["name"] == "late" && updated.body["push"] == push, "\(updated.text)")
        let list = await j.call("GET", "/v3/schedules?page=1")
        #expect(list.body["total_count"] == 1 && list.body["schedules"]?.arrayValue?.first?["name"] == "late")
        let pending = await j.t.call("GET", "/v1/pushes?status=scheduled", key: j.app.master).body["pushes"]?.arrayValue ?? []
        #expect(pending.count == 1 && pending.first?["sendAt"]?.stringValue.flatMap(ISO8601.parse) == ISO8601.parse("2027-01-15T13:00:00Z"))
        #expect(await j.call("GET", "/v3/schedules/\(id)/msg_ids").body["count"] == 0, "not sent yet")

        // At the time, the push goes out and its msg_id is listed.
        j.t.clock.advance(by: 5 * 3600 + 1)
        try await j.t.deliver()
        #expect(try await reached(j) == ["a", "b"])
        #expect(j.t.transport.notifications.count == 2, "only the moved push went out")
        let sent = await j.call("GET", "/v3/schedules/\(id)/msg_ids")
        #expect(sent.body["count"] == 1 && sent.body["msgids"]?.arrayValue?.first == pending.first?["id"])

        // Disabled schedules send nothing; deleting one cancels its pending push.
        let second = await j.call("POST", "/v3/schedules", ["name": "off", "enabled": false, "trigger": ["single": ["time": "2027-01-16 08:00:00"]], "push": push])
        let secondID = try #require(second.body["schedule_id"]?.stringValue)
        #expect(await j.t.call("GET", "/v1/pushes?status=scheduled", key: j.app.master).body["pushes"] == [])
        #expect(await j.call("PUT", "/v3/schedules/\(secondID)", ["enabled": true]).status == 200)
        #expect(await j.t.call("GET", "/v1/pushes?status=scheduled", key: j.app.master).body["pushes"]?.arrayValue?.count == 1)
        #expect(await j.call("DELETE", "/v3/schedules/\(secondID)").status == 200)
        #expect(await j.t.call("GET", "/v1/pushes?status=scheduled", key: j.app.master).body["pushes"] == [])
        #expect(await j.call("GET", "/v3/schedules/\(secondID)").status == 404)
    }

    @Test func devicesTagsAndAliasesReadAndChangeTheRegistry() async throws {
        let j = try await start()
        #expect(await j.call("GET", "/v3/devices/a").body == ["tags": ["news", "sports"], "alias": "alice", "mobile": nil])
        #expect(await j.call("POST", "/v3/devices/a", ["tags": ["add": ["vip"], "remove": ["sports"]], "alias": "alice2"]).status == 200)
        #expect(await j.call("GET", "/v3/devices/a").body == ["tags": ["news", "vip"], "alias": "alice2", "mobile": nil])
        #expect(await j.call("POST", "/v3/devices/a", ["tags": "", "alias": ""]).status == 200)
        #expect(await j.call("GET", "/v3/devices/a").body == ["tags": [], "alias": nil, "mobile": nil])
        // A refused update changes nothing.
        #expect(await j.call("POST", "/v3/devices/b", ["tags": ["add": ["ok"]], "alias": 5]).body["error"]?["code"] == 7002)
        #expect(await j.call("GET", "/v3/devices/b").body["tags"] == ["news"])
        // Also when only the alias's text is refused (a NUL character): the tags are not added first.
        let nul = await j.call("POST", "/v3/devices/b", ["tags": ["add": ["ok"]], "alias": "a\u{0}"])
        #expect(nul.status == 400 && nul.body["error"]?["message"]?.stringValue?.contains("U+0000") == true, "\(nul.body)")
        #expect(await j.call("GET", "/v3/devices/b").body["tags"] == ["news"])

        #expect(await j.call("POST", "/v3/tags/vip", ["registration_ids": ["add": ["b", "c"]]]).status == 200)
        #expect(await j.call("GET", "/v3/tags/vip/registration_ids/c").body == ["result": true])
        #expect(await j.call("GET", "/v3/tags/vip/registration_ids/a").body == ["result": false])
        #expect(await j.call("POST", "/v3/tags/vip", ["registration_ids": ["remove": ["c"], "add": ["nobody"]]]).status == 400)
        #expect(await j.call("GET", "/v3/tags/vip/registration_ids/c").body == ["result": true], "nothing changed")
        #expect(await j.call("GET", "/v3/tags").body == ["tags": ["news", "vip"]])
        #expect(await j.call("DELETE", "/v3/tags/vip").status == 200)
        #expect(await j.call("GET", "/v3/tags").body == ["tags": ["news"]])

        #expect(await j.call("GET", "/v3/aliases/bob").body == ["registration_ids": ["b"]], "the id the app registered with")
        #expect(await j.call("DELETE", "/v3/aliases/bob").status == 200)
        #expect(await j.call("GET", "/v3/aliases/bob").body == ["registration_ids": []])
        let status = await j.call("POST", "/v3/devices/status", ["registration_ids": ["b", "nobody"]])
        #expect(status.body["b"]?["online"] == false && status.body["nobody"] == nil)
    }

    @Test func reportsGiveHeraldsCountsInJPushsFields() async throws {
        let j = try await start()
        let sent = await j.call("POST", "/v3/push", ["platform": "all", "audience": ["tag": ["news"]], "notification": ["alert": "x"]])
        let msgID = try #require(sent.body["msg_id"]?.stringValue)
        j.t.transport.answer { n in n.deviceToken == token(2) ? DeliveryResult(id: n.id, status: 400, reason: "BadDeviceToken") : DeliveryResult(id: n.id, status: 200) }
        try await j.t.deliver()
        _ = try await j.t.service.services.opens.record(appID: j.app.id, .installation(pushID: msgID, installationID: "a"))
        let received = await j.call("GET", "/v3/received?msg_ids=\(msgID),123")
        #expect(received.body == [["msg_id": .int(Int(msgID)!), "android_received": nil, "ios_apns_sent": 1, "ios_apns_received": nil,
                                   "ios_msg_received": nil, "wp_mpns_sent": nil]], "unknown msg_ids are left out")
        #expect(await j.call("GET", "/v3/received/detail?msg_ids=\(msgID)").body.arrayValue?.first?["ios_clicked"] == 1)
        let messages = await j.call("GET", "/v3/messages/detail?msg_ids=\(msgID)")
        #expect(messages.body.arrayValue?.first?["ios"]?["apns_target"] == 2 && messages.body.arrayValue?.first?["ios"]?["apns_sent"] == 1 && messages.body.arrayValue?.first?["ios"]?["click"] == 1)
        #expect(messages.body.arrayValue?.first?["ios"]?["failures"] == ["BadDeviceToken": 1])
        #expect(await j.call("GET", "/v3/received?msg_ids=abc").body["error"]?["code"] == 1003)
        #expect(await j.call("GET", "/v3/received").body["error"]?["code"] == 1002)
    }
}

/// Resolved JPush identities are cached: a change made by this process applies at once, one made by
/// another server on the same database (here: straight in the store) within the cache's lifetime (30 s).
@Suite struct CompatIdentityCacheTests {
    @Test func anIdentityRemovedElsewhereStopsWorkingWithinTheTTL() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        #expect(await t.call("PUT", "/v1/apps/\(app.id)/jpush", key: app.master, json: ["appKey": "k1", "masterSecret": "s1"]).status == 200)
        let basic = JPushAPITests.basic("k1", "s1")
        #expect(await t.call("GET", "/v3/tags", headers: ["authorization": basic]).status == 200)

        #expect(try await t.service.store.deleteCompatIdentity(appID: app.id, provider: "jpush"), "another node deletes it")
        #expect(await t.call("GET", "/v3/tags", headers: ["authorization": basic]).status == 200, "still cached here")
        t.clock.advance(by: CompatIdentityCache.lifetime + 1)
        #expect(await t.call("GET", "/v3/tags", headers: ["authorization": basic]).status == 401)
        #expect(await t.call("GET", "/v3/tags", headers: ["authorization": JPushAPITests.basic("k1", "wrong")]).status == 401)
    }
}
