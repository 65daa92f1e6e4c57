import Foundation
import Testing
@testable import HeraldServer
import HeraldJSON

@Suite struct ValidationTests {
    @Test(arguments: [
        ("POST", "/v1/apps", "admin", [:] as JSON, "name"),
        ("POST", "/v1/apps", "admin", ["name": "x", "defaultTimeZone": "Nowhere/City"] as JSON, "defaultTimeZone"),
        ("POST", "/v1/apps", "admin", ["name": "x", "rateLimit": 0] as JSON, "rateLimit"),
        ("POST", "/v1/apps", "admin", ["name": "x", "colour": "red"] as JSON, "colour"),
        ("PUT", "/v1/apps/{app}/credentials/production", "master", ["type": "jwt"] as JSON, "type"),
        ("PUT", "/v1/apps/{app}/credentials/production", "master", ["type": "token", "keyId": "ABC123DEFG", "teamId": "TEAM123456", "key": "not a pem"] as JSON, "key"),
        ("PUT", "/v1/apps/{app}/credentials/production", "master", ["type": "token", "keyId": "ABC123DEFG", "key": "x"] as JSON, "teamId"),
        ("PUT", "/v1/apps/{app}/credentials/production", "master", ["type": "certificate", "p12": "%%%"] as JSON, "p12"),
        ("PUT", "/v1/apps/{app}/credentials/production", "master", ["type": "certificate", "certificate": "x", "privateKey": "y"] as JSON, "certificate"),
        ("PUT", "/v1/apps/{app}/credentials/production", "master", ["type": "certificate", "certificate": "-----BEGIN CERTIFICATE-----"] as JSON, "privateKey"),
        ("POST", "/v1/installations/i-1/tags", "client", [:] as JSON, "add"),
        ("POST", "/v1/installations/i-1/tags", "client", ["add": ["ok", "not ok"]] as JSON, "add[1]"),
        ("POST", "/v1/opens", "client", ["pushId": "p"] as JSON, "installationId"),
        ("POST", "/v1/opens", "client", ["installationId": "i-1"] as JSON, "pushId"),
        ("PATCH", "/v1/installations/i-1", "client", ["timeZone": "Mars/Olympus"] as JSON, "timeZone"),
    ])
    func requestsWithAnInvalidFieldAre422AndNameIt(method: String, path: String, key: String, body: JSON, field: String) async throws {
        let t = try await TestService()
        let app = try await t.createApp(withCredentials: false)
        try await t.register(app, "i-1", token: token(1), tags: ["keep"])
        let secret = key == "admin" ? testAdminKey : key == "master" ? app.master : app.client
        let r = await t.call(method, path.replacingOccurrences(of: "{app}", with: app.id), key: secret, json: body)
        #expect(r.status == 422, "\(r.text)")
        #expect(r.errorField == field, "\(r.text)")
        // Nothing changed: no credential, the installation as registered, one app.
        #expect(await t.call("GET", "/v1/apps/\(app.id)/credentials", key: app.master).body["credentials"] == [])
        let installation = await t.call("GET", "/v1/installations/i-1", key: app.master).body
        #expect(installation["tags"] == ["keep"] && installation["timeZone"] == .null)
        #expect(await t.call("GET", "/v1/apps", key: testAdminKey).body["apps"]?.arrayValue?.count == 1)
    }

    @Test func unknownScopeOrEnvironmentInThePathIs404() async throws {
        let t = try await TestService()
        let app = try await t.createApp(withCredentials: false)
        #expect(await t.call("POST", "/v1/apps/\(app.id)/keys/admin/rotate", key: app.master).status == 404)
        #expect(await t.call("PUT", "/v1/apps/\(app.id)/credentials/staging", key: app.master, json: p8Credential).status == 404)
        #expect(await t.call("GET", "/v1/apps/app_missing", key: testAdminKey).status == 404)
    }

    @Test func badQueryParametersAre400() async throws {
        let t = try await TestService()
        let app = try await t.createApp(withCredentials: false)
        for query in ["limit=0", "limit=abc", "cursor=-1", "updatedSince=yesterday", "deviceToken=zz"] {
            let r = await t.call("GET", "/v1/installations?\(query)", key: app.master)
            #expect(r.status == 400 || r.status == 422, "\(query): \(r.text)")
            #expect(r.errorCode != nil)
        }
        #expect(await t.call("GET", "/v1/installations/export?format=xml", key: app.master).status == 400)
    }

    @Test(arguments: ServerStore.available) func aScheduledPushSurvivesARestart(_ store: ServerStore) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-sched-\(UUID().uuidString)")
        let clock = ManualClock(start)
        var app: TestService.App!
        var id = ""
        do {
            let t = try await TestService(directory: dir, store: store, clock: clock)
            app = try await t.createApp()
            try await t.register(app, "i", token: token(1))
            id = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"], "options": ["sendAt": "2027-01-16T08:00:00Z"]])
            try await t.deliver()
            await t.service.shutdown()
        }
        let t2 = try await TestService(directory: dir, store: store, clock: clock)
        try await t2.deliver()
        #expect(t2.transport.notifications.isEmpty)
        clock.advance(by: 86_400)
        try await t2.deliver()
        #expect(t2.transport.notifications.count == 1)
        #expect(await t2.status(app, id)["status"] == "done")
    }

    @Test func appWideRateLimitCoversAllItsPushes() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        #expect(await t.call("PATCH", "/v1/apps/\(app.id)", key: app.master, json: ["rateLimit": 3]).body["rateLimit"] == 3)
        for i in 0..<4 { try await t.register(app, "i-\(i)", token: token(i)) }
        _ = try await t.push(app, ["target": ["all": true], "content": ["alert": "a"]])
        _ = try await t.push(app, ["target": ["all": true], "content": ["alert": "b"]])
        try await t.deliver()
        #expect(t.transport.notifications.count == 3)
        t.clock.advance(by: 1)
        try await t.deliver()
        #expect(t.transport.notifications.count == 6)
    }
}

@Suite struct JSONTests {
    @Test func parsesEscapesSurrogatesAndNumbers() throws {
        let v = try JSON(parsing: #"{"a":"\u00e9\ud83d\ude00\n\"","b":[1,-2.5,1e3,true,false,null],"c":{}}"#)
        #expect(v["a"] == .string("é😀\n\""))
        #expect(v["b"] == [1, .number(-2.5), 1000, true, false, nil])
        #expect(try JSON(parsing: v.encoded) == v)
    }

    @Test func aHighSurrogateWithoutItsLowHalfIsRefusedAndSaysWhere() throws {
        // Once a Fuzz/fuzz-server-json crash (`\uD800` before an escape that is not a low surrogate overflowed
        // UInt32 arithmetic); then silently replaced by U+FFFD; now refused, as the APNs model refuses it,
        // since the server parses with the same parser (HeraldJSON).
        #expect {
            try JSON(parsing: #""\uD800\u0041""#)
        } throws: { error in
            "\(error)".contains("unpaired UTF-16 surrogate \\uD800")
        }
        #expect(throws: JSONParseError.self) { try JSON(parsing: #""\udbff\udbff\udc00""#) }
        #expect(try JSON(parsing: #""\udbff\udc00""#) == .string("\u{10FC00}"))
    }

    // `1e999`: found by Fuzz/fuzz-server-json (infinity was encoded back as `null`).
    // `\u+041`: UInt32(_:radix:) takes a sign.
    @Test(arguments: ["", "{", "{\"a\"}", "[1,]", "{\"a\":1}x", "\"unterminated", "tru", "{\"a\":\u{01}}",
                      String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
                      "1e999", "[-1e400]", #""\u+041""#])
    func rejectsMalformedInput(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSON(parsing: text) }
    }
}

@Suite struct StatusQueryTests {
    @Test func listsScheduledPushesAndFiltersDeliveriesByState() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        try await t.register(app, "good", token: token(1))
        try await t.register(app, "bad", token: token(2))
        t.transport.answer { n in n.deviceToken == token(2) ? DeliveryResult(id: n.id, status: 400, reason: "BadTopic") : .accepted(n.id) }
        let now = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        let later = try await t.push(app, ["target": ["all": true], "content": ["alert": "y"], "options": ["sendAt": "2027-02-01T00:00:00Z"]])
        try await t.deliver()
        let scheduled = await t.call("GET", "/v1/pushes?status=scheduled", key: app.master).body["pushes"]?.arrayValue ?? []
        #expect(scheduled.map { $0["id"]?.stringValue } == [later])
        #expect(await t.call("GET", "/v1/pushes?status=nope", key: app.master).status == 400)
        let failed = await t.call("GET", "/v1/pushes/\(now)?include=deliveries&state=failed", key: app.master).body
        let rows = failed["deliveries"]?.arrayValue ?? []
        #expect(rows.count == 1 && rows.first?["reason"] == "BadTopic" && rows.first?["status"] == 400)
    }
}
