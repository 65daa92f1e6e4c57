import Foundation
import Testing
import HeraldCrypto
import HeraldHTTP
@testable import HeraldServer

/// LeanCloud's wire protocol as its SDKs speak it, request by request: the headers and bodies the objc and Swift
/// SDKs send (X-LC-Sign, X-LC-Prod, batch/save with __internalId, PUT inside a batch), and LeanCloud's answers.
@Suite struct LeanCloudCompatTests {
    static let lcAppID = "pGtcvsDq7zWJmXFo-gzGzoHsz", appKey = "RYxY5qfe4zFV2G0dUgM3SKrV", masterKey = "nE8vWTX7cv6iL8ThPSpA5mPq"

    /// A Herald app with LeanCloud keys set, as an operator sets them.
    func leanCloudApp(_ t: TestService) async throws -> TestService.App {
        let app = try await t.createApp()
        let put = await t.call("PUT", "/v1/apps/\(app.id)/leancloud", key: app.master,
                               json: ["appId": .string(Self.lcAppID), "appKey": .string(Self.appKey), "masterKey": .string(Self.masterKey)])
        #expect(put.status == 200, "\(put.text)")
        return app
    }

    /// X-LC-Sign as the SDKs compute it: md5(timestamp + key) in lower-case hex, then the timestamp in ms.
    static func sign(_ key: String, at date: Date, master: Bool = false) -> String {
        let ms = String(Int64(date.timeIntervalSince1970 * 1000))
        return LeanCloudAuthentication.hex(Digest.md5(Array((ms + key).utf8))) + "," + ms + (master ? ",master" : "")
    }

    func signed(_ t: TestService, master: Bool = false, prod: String? = "1") -> HTTPHeaders {
        var h: HTTPHeaders = ["x-lc-id": Self.lcAppID, "x-lc-sign": Self.sign(master ? Self.masterKey : Self.appKey, at: t.clock.now(), master: master)]
        if let prod { h.set("x-lc-prod", prod) }
        return h
    }

    @Test func signatureMatchesLeanCloudsDocumentedExample() {
        // docs/sdk/storage/rest.mdx: md5("1453014943466" + "UtOCzqb67d3sN12Kts4URwy8").
        #expect(LeanCloudAuthentication.hex(Digest.md5(Array("1453014943466UtOCzqb67d3sN12Kts4URwy8".utf8))) == "d5bcbb897e19b2f6633c716dfdfaf9be")
    }

    @Test func keysAreSetShownAsHintsAndRemoved() async throws {
        let t = try await TestService()
        let app = try await leanCloudApp(t)
        let shown = await t.call("GET", "/v1/apps/\(app.id)/leancloud", key: testAdminKey)
        #expect(shown.status == 200 && shown.body["appId"]?.stringValue == Self.lcAppID)
        #expect(!shown.text.contains(Self.appKey) && !shown.text.contains(Self.masterKey), "keys are never returned")
        #expect(shown.body["hints"]?["appKey"]?.stringValue == "RYxY…")
        // The client key cannot read or set them; another app cannot take the same App ID.
        #expect(await t.call("GET", "/v1/apps/\(app.id)/leancloud", key: app.client).status == 403)
        let other = try await t.createApp("Other")
        let taken = await t.call("PUT", "/v1/apps/\(other.id)/leancloud", key: other.master,
                                 json: ["appId": .string(Self.lcAppID), "appKey": "k", "masterKey": "m"])
        #expect(taken.status == 409 && taken.errorField == "appId")
        #expect(await t.call("PUT", "/v1/apps/\(other.id)/leancloud", key: other.master, json: ["appId": "x", "appKey": "k"]).errorField == "masterKey")

        #expect(await t.call("POST", "/1.1/installations", json: ["deviceToken": .string(token(1))], headers: signed(t)).status == 201)
        #expect(await t.call("DELETE", "/v1/apps/\(app.id)/leancloud", key: app.master).status == 204)
        let after = await t.call("POST", "/1.1/installations", json: ["deviceToken": .string(token(1))], headers: signed(t))
        #expect(after.status == 401 && after.body["code"] == 401, "removed keys stop working at once: \(after.text)")
        #expect(await t.call("GET", "/v1/apps/\(app.id)/leancloud", key: app.master).status == 404)
    }

    @Test func requestsAreAuthenticatedAsLeanCloudDoes() async throws {
        let t = try await TestService()
        let app = try await leanCloudApp(t)
        let body: JSON = ["deviceType": "ios", "deviceToken": .string(token(1))]
        func save(_ headers: HTTPHeaders) async -> TestService.Reply { await t.call("POST", "/1.1/installations", json: body, headers: headers) }

        #expect(await save(["x-lc-id": Self.lcAppID, "x-lc-key": Self.appKey]).status == 201)
        #expect(await save(["x-lc-id": Self.lcAppID, "x-lc-key": "\(Self.masterKey),master"]).status == 200)
        #expect(await save(signed(t)).status == 200)
        #expect(await save(signed(t, master: true)).status == 200)
        // Spaces and tabs around the parts, as a hand-written header may have them, are not part of them.
        let spaced = Self.sign(Self.masterKey, at: t.clock.now(), master: true).split(separator: ",").joined(separator: " ,\t")
        #expect(await save(["x-lc-id": Self.lcAppID, "x-lc-sign": " \(spaced) "]).status == 200)
        #expect(await save(["x-lc-id": Self.lcAppID, "x-lc-key": "\t\(Self.masterKey) , master"]).status == 200)
        // Herald's own keys keep working on these routes, as a bearer or as X-LC-Key.
        #expect(await t.call("POST", "/1.1/installations", key: app.client, json: body).status == 200)
        #expect(await save(["x-lc-id": Self.lcAppID, "x-lc-key": app.client]).status == 200)

        var refused: [HTTPHeaders] = [
            ["x-lc-id": Self.lcAppID, "x-lc-key": "wrong"],
            ["x-lc-id": Self.lcAppID, "x-lc-key": Self.appKey + ",master"],   // the App Key is not the Master Key
            ["x-lc-id": "unknown-app-id", "x-lc-key": Self.appKey],
            ["x-lc-id": Self.lcAppID, "x-lc-sign": Self.sign(Self.appKey, at: t.clock.now()).uppercased()],
            ["x-lc-id": Self.lcAppID, "x-lc-sign": Self.sign(Self.appKey, at: t.clock.now(), master: true)],
            ["x-lc-id": Self.lcAppID, "x-lc-sign": "garbage"],
            ["x-lc-id": Self.lcAppID],
        ]
        // A stale signature (an hour old, or from the future) is refused even with the right key.
        refused.append(["x-lc-id": Self.lcAppID, "x-lc-sign": Self.sign(Self.appKey, at: t.clock.now().addingTimeInterval(-3600))])
        refused.append(["x-lc-id": Self.lcAppID, "x-lc-sign": Self.sign(Self.masterKey, at: t.clock.now().addingTimeInterval(3600), master: true)])
        for headers in refused {
            let r = await save(headers)
            #expect(r.status == 401 && r.body["code"] == 401 && r.body["error"]?.stringValue?.isEmpty == false, "\(r.text)")
        }
        let stale = await save(["x-lc-id": Self.lcAppID, "x-lc-sign": Self.sign(Self.appKey, at: t.clock.now().addingTimeInterval(-3600))])
        #expect(stale.body["error"]?.stringValue?.contains("timestamp") == true)

        // The App Key has the client key's powers: no push, no query, no delete (LeanCloud's 119).
        for (method, path) in [("POST", "/1.1/push"), ("GET", "/1.1/installations"), ("DELETE", "/1.1/installations/x")] {
            let r = await t.call(method, path, json: method == "POST" ? ["data": ["alert": "x"]] : nil, headers: signed(t))
            #expect(r.status == 403 && r.body["code"] == 119, "\(method) \(path): \(r.text)")
        }
    }

    /// What LCInstallation's save sends from the objc SDK (and the Swift SDK's ObjectUpdater): POST batch/save with
    /// one POST /1.1/installations carrying __internalId, then, once the object has an objectId, a PUT inside the batch.
    @Test func objcAndSwiftSDKBatchSaveWithInternalIDAndPut() async throws {
        let t = try await TestService()
        let app = try await leanCloudApp(t)
        let internalID = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        let first = await t.call("POST", "/1.1/batch/save", json: ["requests": [[
            "method": "POST", "path": "/1.1/installations", "new": true,
            "body": ["deviceType": "ios", "deviceToken": .string(token(7)), "apnsTeamId": "TEAM123456", "apnsTopic": "com.example.demo",
                     "timeZone": "Asia/Shanghai", "badge": 0, "channels": ["__op": "AddUnique", "objects": ["news", "sports"]],
                     "__internalId": .string(internalID)],
        ]]], headers: signed(t))
        #expect(first.status == 200, "\(first.text)")
        let objectID = try #require(first.body[internalID]?["objectId"]?.stringValue, "keyed by __internalId: \(first.text)")
        #expect(first.body[internalID]?["createdAt"]?.stringValue != nil)

        // The app starts again: the SDK saves the same token (without objectId) and later updates by objectId.
        let again = await t.call("POST", "/1.1/batch/save", json: ["requests": [[
            "method": "POST", "path": "/1.1/installations",
            "body": ["deviceType": "ios", "deviceToken": .string(token(7)), "apnsTeamId": "TEAM123456", "__internalId": "second"],
        ]]], headers: signed(t))
        #expect(again.body["second"]?["objectId"]?.stringValue == objectID, "upsert by deviceToken: \(again.text)")
        let put = await t.call("POST", "/1.1/batch/save", json: ["requests": [[
            "method": "PUT", "path": .string("/1.1/installations/\(objectID)"),
            "body": ["badge": ["__op": "Increment", "amount": 2], "channels": ["__op": "Remove", "objects": ["sports"]], "__internalId": "third"],
        ]]], headers: signed(t))
        #expect(put.status == 200 && put.body["third"]?["updatedAt"]?.stringValue != nil, "\(put.text)")

        // The objc SDK rewrites every installation save to POST /1.1/installations with the objectId it knows in
        // the body: a new token (APNs issued another) updates that installation instead of making a second one.
        let moved = await t.call("POST", "/1.1/batch/save", json: ["requests": [[
            "method": "POST", "path": "/1.1/installations",
            "body": ["objectId": .string(objectID), "deviceType": "ios", "deviceToken": .string(token(8)), "apnsTeamId": "TEAM123456", "__internalId": "fourth"],
        ]]], headers: signed(t))
        #expect(moved.body["fourth"]?["objectId"]?.stringValue == objectID, "\(moved.text)")
        let stored = await t.call("GET", "/v1/installations/\(objectID)", key: app.master).body
        #expect(stored["deviceToken"]?.stringValue == token(8))
        #expect(stored["tags"] == ["news"] && stored["badge"] == 2 && stored["timeZone"] == "Asia/Shanghai" && stored["topic"] == "com.example.demo")
        #expect(stored["properties"] == ["apnsTeamId": "TEAM123456"])

        // X-LC-Prod: 0 (a development build's SDK) without prod means the development APNs environment.
        let push = await t.call("POST", "/1.1/push", json: ["channels": ["news"], "data": ["alert": "x"]], headers: signed(t, master: true, prod: "0"))
        #expect(push.status == 200, "\(push.text)")
        let record = await t.call("GET", "/1.1/classes/_Notification/\(push.body["objectId"]?.stringValue ?? "")", headers: signed(t, master: true))
        #expect(record.body["prod"] == "dev" && record.body["where"]?["environment"] == "sandbox", "\(record.text)")
    }

    @Test func batchAnswersEachOperationAndFailsOnlyTheBadOnes() async throws {
        let t = try await TestService()
        _ = try await leanCloudApp(t)
        let r = await t.call("POST", "/1.1/batch", json: ["requests": [
            ["method": "POST", "path": "/1.1/classes/_Installation", "body": ["deviceType": "ios", "deviceToken": .string(token(1))]],
            ["method": "POST", "path": "/1.1/classes/_Installation", "body": ["deviceType": "ios", "deviceToken": "not-hex"]],
            ["method": "DELETE", "path": "/1.1/classes/_Installation/abc", "body": [:]],
        ]], headers: signed(t))
        #expect(r.status == 200, "\(r.text)")
        let results = try #require(r.body.arrayValue)
        #expect(results.count == 3 && results[0]["success"]?["objectId"]?.stringValue != nil)
        #expect(results[1]["error"]?["code"] == 114, "invalid device token: \(r.text)")
        #expect(results[2]["error"]?["code"] == 119, "the App Key cannot delete: \(r.text)")
        let other = await t.call("POST", "/1.1/batch", json: ["requests": [["method": "POST", "path": "/1.1/classes/Post", "body": [:]]]], headers: signed(t))
        #expect(other.status == 400 && other.body["code"] == 1 && other.text.contains("_Installation"))
    }

    @Test(arguments: ServerStore.available) func installationsAreSavedFetchedUpdatedQueriedAndDeleted(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        _ = try await leanCloudApp(t)
        let master = signed(t, master: true)
        var ids: [String] = []
        for (i, spec) in [(["news"], "Asia/Shanghai", "gold"), (["news", "sports"], "Europe/Paris", "silver"), (["sports"], "Asia/Shanghai", nil)].enumerated() {
            var body: [String: JSON] = ["deviceType": "ios", "deviceToken": .string(token(i + 1)), "installationId": .string("iid-\(i)"),
                                        "channels": .array(spec.0.map(JSON.string)), "timeZone": .string(spec.1), "age": .int(20 + i)]
            if let plan = spec.2 { body["plan"] = .string(plan) }
            let r = await t.call("POST", "/1.1/classes/_Installation", json: .object(body), headers: signed(t))
            #expect(r.status == 201 && r.headers["location"]?.hasSuffix("/1.1/classes/_Installation/\(r.body["objectId"]?.stringValue ?? "-")") == true, "\(r.text)")
            ids.append(try #require(r.body["objectId"]?.stringValue))
        }
        // Upsert by installationId first, then by deviceToken: the same objectId comes back.
        let byIID = await t.call("POST", "/1.1/installations", json: ["installationId": "iid-0", "deviceToken": .string(token(9))], headers: signed(t))
        #expect(byIID.status == 200 && byIID.body["objectId"]?.stringValue == ids[0] && byIID.body["updatedAt"] != nil)
        let byToken = await t.call("POST", "/1.1/installations", json: ["deviceToken": .string(token(2)), "badge": 3], headers: signed(t))
        #expect(byToken.body["objectId"]?.stringValue == ids[1])

        let fetched = await t.call("GET", "/1.1/installations/\(ids[1])", headers: signed(t))
        #expect(fetched.body["channels"] == ["news", "sports"] && fetched.body["plan"] == "silver" && fetched.body["badge"] == 3)
        #expect(fetched.body["deviceType"] == "ios" && fetched.body["valid"] == true && fetched.body["objectId"]?.stringValue == ids[1])
        #expect(fetched.body["createdAt"]?.stringValue.flatMap(ISO8601.parse) != nil)
        let keysOnly = await t.call("GET", "/1.1/installations/\(ids[1])?keys=plan", headers: signed(t))
        #expect(keysOnly.body["plan"] == "silver" && keysOnly.body["channels"] == nil && keysOnly.body["objectId"] != nil)

        let put = await t.call("PUT", "/1.1/classes/_Installation/\(ids[2])?fetchWhenSave=true",
                               json: ["channels": ["__op": "AddUnique", "objects": ["news", "sports"]], "badge": ["__op": "Increment", "amount": 1],
                                      "plan": "bronze", "age": ["__op": "Delete"]], headers: signed(t))
        #expect(put.status == 200 && Set(put.body["channels"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ["sports", "news"], "\(put.text)")
        #expect(put.body["badge"] == 1 && put.body["plan"] == "bronze" && put.body["age"] == nil, "\(put.text)")

        func query(_ params: String) async -> TestService.Reply {
            await t.call("GET", "/1.1/classes/_Installation?" + params, headers: master)
        }
        func found(_ whereJSON: String, _ extra: String = "") async -> Set<String> {
            let encoded = whereJSON.urlQueryValue
            let r = await query("where=\(encoded)" + extra)
            #expect(r.status == 200, "\(whereJSON): \(r.text)")
            return Set(r.body["results"]?.arrayValue?.compactMap { $0["objectId"]?.stringValue } ?? [])
        }
        #expect(await found(#"{"channels":"news"}"#) == Set(ids))
        #expect(await found(#"{"timeZone":{"$in":["Europe/Paris"]}}"#) == [ids[1]])
        #expect(await found(#"{"plan":{"$nin":["gold","silver"]}}"#) == [ids[2]])
        #expect(await found(#"{"plan":{"$ne":"gold"}}"#) == [ids[1], ids[2]])
        #expect(await found(#"{"age":{"$exists":false}}"#) == [ids[2]])
        #expect(await found(#"{"$or":[{"plan":"gold"},{"timeZone":"Europe/Paris"}]}"#) == [ids[0], ids[1]])
        #expect(await found(#"{"$and":[{"channels":"sports"},{"timeZone":"Asia/Shanghai"}]}"#) == [ids[2]])
        #expect(await found(#"{"age":{"$gte":21}}"#) == [ids[1]])
        let cutoff = ISO8601.string(t.clock.now().addingTimeInterval(-60))
        #expect(await found(#"{"createdAt":{"$gt":{"__type":"Date","iso":"\#(cutoff)"}}}"#) == Set(ids))

        let ordered = await query("order=-age,plan&limit=2&skip=0")
        #expect(ordered.body["results"]?.arrayValue?.map { $0["objectId"]?.stringValue ?? "" } == [ids[1], ids[0]], "\(ordered.text)")
        let skipped = await query("order=plan&limit=1&skip=1&keys=plan")
        #expect(skipped.body["results"]?.arrayValue?.first?["plan"] == "gold" && skipped.body["results"]?.arrayValue?.first?["channels"] == nil, "\(skipped.text)")
        let counted = await query("count=1&limit=0&where=" + (#"{"channels":"sports"}"#.urlQueryValue))
        #expect(counted.body["count"] == 2 && counted.body["results"] == [])
        #expect(await query("limit=1001").body["code"] == 1)

        // valid: false stops pushes to the device, as on LeanCloud; the installation stays and says so.
        #expect(await t.call("PUT", "/1.1/installations/\(ids[2])", json: ["valid": false], headers: signed(t)).status == 200)
        #expect(await t.call("GET", "/1.1/installations/\(ids[2])", headers: signed(t)).body["valid"] == false)
        #expect(await found(#"{"valid":true}"#) == [ids[0], ids[1]])

        #expect(await t.call("DELETE", "/1.1/installations/\(ids[0])", headers: master).status == 200)
        let gone = await t.call("GET", "/1.1/installations/\(ids[0])", headers: master)
        #expect(gone.status == 404 && gone.body["code"] == 101)
    }

    /// LeanCloud applies Increment and AddUnique atomically: saves racing on one installation (the app's save by
    /// token and a backend's updates by objectId) each count, in the badge, a custom column and the channels.
    @Test(arguments: ServerStore.available) func concurrentSavesOfOneInstallationLoseNoIncrement(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        _ = try await leanCloudApp(t)
        let created = await t.call("POST", "/1.1/installations", json: ["deviceType": "ios", "deviceToken": .string(token(1)), "launches": 0],
                                   headers: signed(t))
        let objectID = try #require(created.body["objectId"]?.stringValue, "\(created.text)")
        let statuses = await withTaskGroup(of: Int.self) { group in
            for i in 0..<30 {
                group.addTask {
                    let body: JSON = ["badge": ["__op": "Increment", "amount": 1], "launches": ["__op": "Increment", "amount": 2],
                                      "channels": ["__op": "AddUnique", "objects": [.string("c\(i)")]]]
                    var object = body.objectValue ?? [:]
                    if i % 2 == 0 { object["deviceToken"] = .string(token(1)) }
                    return i % 2 == 0
                        ? await t.call("POST", "/1.1/installations", json: .object(object), headers: signed(t)).status
                        : await t.call("PUT", "/1.1/installations/\(objectID)", json: .object(object), headers: signed(t)).status
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        let fetched = await t.call("GET", "/1.1/installations/\(objectID)", headers: signed(t))
        #expect(fetched.body["badge"] == 30 && fetched.body["launches"] == 60, "\(fetched.text)")
        #expect(fetched.body["channels"]?.arrayValue?.count == 30, "\(fetched.text)")
    }

    /// Increment counts from the stored badge, down as well as up, whichever route carries it: a save is
    /// checked before the store finds its installation, and that check must not take the badge as 0.
    @Test(arguments: ServerStore.available) func aBadgeIncrementCountsFromTheStoredBadgeInBothDirections(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        _ = try await leanCloudApp(t)
        let created = await t.call("POST", "/1.1/installations", json: ["deviceToken": .string(token(1)), "badge": 5], headers: signed(t))
        let objectID = try #require(created.body["objectId"]?.stringValue, "\(created.text)")
        func badge() async -> JSON? { await t.call("GET", "/1.1/installations/\(objectID)", headers: signed(t)).body["badge"] }

        let put = await t.call("PUT", "/1.1/installations/\(objectID)", json: ["badge": ["__op": "Increment", "amount": -1]], headers: signed(t))
        #expect(put.status == 200, "\(put.text)")
        let post = await t.call("POST", "/1.1/installations", json: ["deviceToken": .string(token(1)), "badge": ["__op": "Increment", "amount": -2]],
                                headers: signed(t))
        #expect(post.status == 200 && post.body["objectId"]?.stringValue == objectID, "\(post.text)")
        let batch = await t.call("POST", "/1.1/batch/save", json: ["requests": [[
            "method": "PUT", "path": .string("/1.1/installations/\(objectID)"), "body": ["badge": ["__op": "Increment", "amount": -1], "__internalId": "x"],
        ]]], headers: signed(t))
        #expect(batch.status == 200 && batch.body["x"]?["objectId"]?.stringValue == objectID, "\(batch.text)")
        #expect(await badge() == 1)

        // Below zero, or past what an Int holds, is refused and changes nothing; a new installation counts from 0.
        let below = await t.call("PUT", "/1.1/installations/\(objectID)", json: ["badge": ["__op": "Increment", "amount": -2]], headers: signed(t))
        #expect(below.status == 400 && below.body["error"]?.stringValue?.contains("badge") == true, "\(below.text)")
        let huge = await t.call("PUT", "/1.1/installations/\(objectID)", json: ["badge": ["__op": "Increment", "amount": .int(Int.max)]], headers: signed(t))
        #expect(huge.status == 400 && huge.body["error"]?.stringValue?.contains("badge") == true, "\(huge.text)")
        #expect(await badge() == 1)
        let fresh = await t.call("POST", "/1.1/installations?fetchWhenSave=true", json: ["deviceToken": .string(token(2)), "badge": ["__op": "Increment", "amount": 3]],
                                 headers: signed(t))
        #expect(fresh.status == 201 && fresh.body["badge"] == 3, "\(fresh.text)")
        let missing = await t.call("POST", "/1.1/batch", json: ["requests": [
            ["method": "PUT", "path": "/1.1/installations/nope", "body": ["badge": ["__op": "Increment", "amount": -1]]],
        ]], headers: signed(t))
        #expect(missing.body.arrayValue?.first?["error"]?["code"] == 101, "\(missing.text)")
    }

    @Test func errorsAreLeanCloudsBodiesAndCodes() async throws {
        let t = try await TestService()
        let app = try await leanCloudApp(t)
        let badJSON = await t.call("POST", "/1.1/installations", raw: Array("{not json".utf8), headers: signed(t))
        #expect(badJSON.status == 400 && badJSON.body["code"] == 107 && badJSON.body["error"]?.stringValue != nil)
        let badToken = await t.call("POST", "/1.1/installations", json: ["deviceType": "ios", "deviceToken": "xyz"], headers: signed(t))
        #expect(badToken.status == 400 && badToken.body["code"] == 114)
        let channel = await t.call("POST", "/1.1/installations", json: ["deviceToken": .string(token(1)), "channels": ["has space"]], headers: signed(t))
        #expect(channel.status == 400 && channel.body["code"] == 112, "\(channel.text)")
        let android = await t.call("POST", "/1.1/installations", json: ["deviceType": "android", "installationId": "a"], headers: signed(t))
        #expect(android.status == 400 && android.body["code"] == 1 && android.text.contains("APNs"))
        // A NUL character, refused by the service layer, named by LeanCloud's column.
        let nul = await t.call("POST", "/1.1/installations", json: ["deviceToken": .string(token(2)), "apnsTopic": "com.example\u{0}"], headers: signed(t))
        #expect(nul.status == 400 && nul.body["error"]?.stringValue?.contains("apnsTopic") == true, "\(nul.text)")
        let missing = await t.call("GET", "/1.1/installations/nope", headers: signed(t))
        #expect(missing.status == 404 && missing.body["code"] == 101)
        // A save by objectId never creates; a save that finds nothing and carries no key cannot.
        let putMissing = await t.call("PUT", "/1.1/installations/nope", json: ["deviceToken": .string(token(3)), "badge": 1], headers: signed(t))
        #expect(putMissing.status == 404 && putMissing.body["code"] == 101, "\(putMissing.text)")
        let keyless = await t.call("POST", "/1.1/installations", json: ["objectId": "nope", "badge": 1], headers: signed(t))
        #expect(keyless.status == 400 && keyless.body["error"]?.stringValue?.contains("deviceToken") == true, "\(keyless.text)")
        // Herald's own routes keep Herald's format.
        let own = await t.call("GET", "/v1/installations/nope", key: app.master)
        #expect(own.status == 404 && own.errorCode == "not_found")
    }

    @Test(arguments: ServerStore.available) func pushesTranslateEveryIOSFieldAndTargetByWhere(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await leanCloudApp(t)
        let bodies: [[String: JSON]] = [
            ["channels": ["news"], "plan": "gold", "timeZone": "Asia/Shanghai"],
            ["channels": ["news"], "plan": "silver", "timeZone": "Europe/Paris"],
            ["channels": ["news", "muted"], "plan": "gold"],
            ["channels": ["sports"], "plan": "gold"],
        ]
        for (i, body) in bodies.enumerated() {
            var o = body
            o["deviceToken"] = .string(token(i + 1)); o["deviceType"] = "ios"
            #expect(await t.call("POST", "/1.1/installations", json: .object(o), headers: signed(t)).status == 201)
        }
        let master = signed(t, master: true)
        let push: JSON = [
            "where": ["channels": ["$nin": ["muted"]], "deviceType": ["$in": ["ios", "android"]],
                      "$or": [["plan": "gold"], ["timeZone": ["$in": ["Europe/Paris"]]]]],
            "channels": ["news"],
            "data": ["alert": ["title": "Hi", "body": "There", "loc-key": "GREETING"], "badge": "Increment", "sound": "default",
                     "content-available": 1, "mutable-content": 1, "category": "NEWS", "thread-id": "news", "collapse-id": "m1",
                     "apns-priority": 10, "custom": "x"],
            "prod": "prod", "expiration_interval": 86_400, "req_id": "a1b2c3", "notification_id": "n1", "flow_control": 2000,
            "topic": "com.example.demo", "apns_team_id": "TEAM123456",
        ]
        let sent = await t.call("POST", "/1.1/push", json: push, headers: master)
        #expect(sent.status == 200, "\(sent.text)")
        let pushID = try #require(sent.body["objectId"]?.stringValue)
        #expect(await t.call("POST", "/1.1/push", json: push, headers: master).body["objectId"]?.stringValue == pushID, "req_id de-duplicates")
        try await t.deliver()
        #expect(Set(t.transport.notifications.map(\.deviceToken)) == [token(1), token(2)], "news, not muted, gold or in Paris")
        let n = try #require(t.transport.notifications.first)
        let p = payload(n)
        #expect(p["aps"]?["alert"] == ["title": "Hi", "body": "There", "loc-key": "GREETING"])
        #expect(p["aps"]?["badge"] == 1 && p["aps"]?["thread-id"] == "news" && p["aps"]?["category"] == "NEWS" && p["custom"] == "x")
        #expect(p["aps"]?["mutable-content"] == 1 && p["aps"]?["content-available"] == 1 && p["aps"]?["sound"] == "default")
        #expect(n.collapseID == "m1" && n.expiration != nil && n.priority == 10)

        // The push's record, as the SDKs' Notification.fetch() reads it.
        for path in ["/1.1/tables/Notifications/\(pushID)", "/1.1/classes/_Notification/\(pushID)"] {
            let record = await t.call("GET", path, headers: master)
            #expect(record.body["status"] == "done" && record.body["devices"] == 2 && record.body["successes"] == 2 && record.body["prod"] == "prod", "\(record.text)")
        }
        let listed = await t.call("GET", "/1.1/classes/_Notification?limit=10&where=" + (#"{"status":"done"}"#.urlQueryValue), headers: master)
        #expect(listed.body["results"]?.arrayValue?.map { $0["objectId"]?.stringValue } == [pushID])

        // The per-platform iOS block wins; a scheduled push reads "scheduled".
        let later = ISO8601.string(t.clock.now().addingTimeInterval(3600))
        let scheduled = await t.call("POST", "/1.1/push", json: ["where": ["plan": "silver"], "push_time": .string(later),
                                                                  "data": ["alert": "default", "ios": ["alert": "for iOS", "badge": 5]]], headers: master)
        let scheduledID = try #require(scheduled.body["objectId"]?.stringValue, "\(scheduled.text)")
        let status = await t.call("GET", "/1.1/classes/_Notification/\(scheduledID)", headers: master)
        #expect(status.body["status"] == "scheduled" && status.body["data"]?["alert"] == "for iOS", "\(status.text)")
        _ = app
    }

    @Test func nonIOSPartsAndUntranslatableQueriesAreRefusedByName() async throws {
        let t = try await TestService()
        _ = try await leanCloudApp(t)
        let master = signed(t, master: true)
        let cases: [(JSON, String)] = [
            (["data": ["alert": "x", "android": ["alert": "y"]]], "data.android"),
            (["data": ["alert": "x", "silent": true]], "data.silent"),
            (["data": ["alert": "x"], "_notificationChannel": "c"], "_notificationChannel"),
            (["data": ["alert": "x"], "cql": "select * from _Installation"], "cql"),
            (["data": ["alert": "x"], "where": ["deviceType": "android"]], "deviceType"),
            (["data": ["alert": "x"], "where": ["badge": ["$gt": 3]]], "where.badge"),
            (["data": ["alert": "x"], "where": ["$or": [["channels": "a"], ["plan": "b"]]]], "$or"),
            (["data": ["alert": "x"], "prod": "staging"], "prod"),
            (["where": ["channels": "a"]], "data"),
        ]
        for (body, name) in cases {
            let r = await t.call("POST", "/1.1/push", json: body, headers: master)
            #expect(r.status == 400 && r.body["code"] == 1 && r.body["error"]?.stringValue?.contains(name) == true, "\(name): \(r.text)")
        }
    }
}

extension String {
    /// The text as one query-string value.
    var urlQueryValue: String { addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics) ?? "" }
}
