import Foundation
import Testing
import HeraldHTTP
@testable import HeraldServer

@Suite struct AuthAndIsolationTests {
    @Test func missingOrUnknownKeysAre401WithTheErrorBody() async throws {
        let t = try await TestService()
        let none = await t.call("GET", "/v1/apps")
        #expect(none.status == 401)
        #expect(none.errorCode == "unauthorized")
        #expect(none.body["error"]?["message"]?.stringValue?.contains("Bearer") == true)
        #expect(await t.call("GET", "/v1/apps", key: "hk_admin_nope").status == 401)
    }

    @Test func keyScopesAreEnforced() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        // Client keys: only installations, tags and opens.
        #expect(await t.call("GET", "/v1/installations", key: app.client).status == 403)
        #expect(await t.call("POST", "/v1/pushes", key: app.client, json: ["target": ["all": true], "content": ["alert": "x"]]).status == 403)
        #expect(await t.call("GET", "/v1/apps/\(app.id)", key: app.client).status == 403)
        #expect(await t.call("PUT", "/v1/apps/\(app.id)/credentials/sandbox", key: app.client, json: p8Credential).status == 403)
        // Admin keys manage apps, not their data.
        #expect(await t.call("GET", "/v1/installations", key: testAdminKey).status == 403)
        #expect(await t.call("GET", "/v1/apps/\(app.id)", key: testAdminKey).status == 200)
        // Master keys: their own app, never the app list or another app.
        #expect(await t.call("GET", "/v1/apps", key: app.master).status == 403)
        #expect(await t.call("GET", "/v1/apps/\(app.id)", key: app.master).status == 200)
        #expect(await t.call("DELETE", "/v1/apps/\(app.id)", key: app.master).status == 403)
    }

    @Test func noKeyOfOneAppTouchesAnotherAppsData() async throws {
        let t = try await TestService()
        let a = try await t.createApp("A")
        let b = try await t.createApp("B")
        let bInstallation = try await t.register(b, "b-1", token: token(1), tags: ["news"])
        let bID = try #require(bInstallation["id"]?.stringValue)
        let bPush = try await t.push(b, ["target": ["all": true], "content": ["alert": "hi"]])

        for key in [a.master, a.client] {
            #expect(await t.call("PATCH", "/v1/installations/\(bID)", key: key, json: ["alias": "x"]).status == 404)
            #expect(await t.call("PATCH", "/v1/installations/b-1", key: key, json: ["alias": "x"]).status == 404)
            #expect(await t.call("DELETE", "/v1/installations/\(bID)", key: key).status == 404)
            #expect(await t.call("POST", "/v1/installations/\(bID)/tags", key: key, json: ["add": ["evil"]]).status == 404)
            #expect(await t.call("POST", "/v1/opens", key: key, json: ["pushId": .string(bPush), "installationId": .string(bID)]).status == 404)
        }
        #expect(await t.call("GET", "/v1/installations/\(bID)", key: a.master).status == 404)
        #expect(await t.call("GET", "/v1/pushes/\(bPush)", key: a.master).status == 404)
        #expect(await t.call("POST", "/v1/pushes/\(bPush)/cancel", key: a.master).status == 404)
        #expect(await t.call("GET", "/v1/apps/\(b.id)", key: a.master).status == 403)
        #expect(await t.call("GET", "/v1/apps/\(b.id)/keys", key: a.master).status == 403)
        #expect(await t.call("POST", "/v1/apps/\(b.id)/keys/master/rotate", key: a.master).status == 403)
        #expect(await t.call("PUT", "/v1/apps/\(b.id)/credentials/production", key: a.master, json: p8Credential).status == 403)
        #expect(await t.call("DELETE", "/v1/tags/news", key: a.master).body["removed"]?.intValue == 0)
        // A's queries never list B's installations; a push to "all" in A reaches none of B's devices.
        #expect(await t.call("GET", "/v1/installations", key: a.master).body["installations"]?.arrayValue?.isEmpty == true)
        let aPush = try await t.push(a, ["target": ["all": true], "content": ["alert": "hi"]])
        try await t.deliver()
        #expect(await t.status(a, aPush)["counts"]?["targeted"]?.intValue == 0)
        // B's data is intact.
        let after = await t.call("GET", "/v1/installations/\(bID)", key: b.master)
        #expect(after.body["alias"] == .null)
        #expect(after.body["tags"] == ["news"])
    }

    @Test func rotatingAKeyRevokesTheOldOne() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        let r = await t.call("POST", "/v1/apps/\(app.id)/keys/master/rotate", key: app.master)
        #expect(r.status == 201)
        let newKey = try #require(r.body["key"]?.stringValue)
        #expect(await t.call("GET", "/v1/apps/\(app.id)", key: app.master).status == 401)
        #expect(await t.call("GET", "/v1/apps/\(app.id)", key: newKey).status == 200)
        // The client key is untouched by a master rotation.
        #expect(await t.call("POST", "/v1/installations", key: app.client, json: ["installationId": "i1"]).status == 201)
        let keys = await t.call("GET", "/v1/apps/\(app.id)/keys", key: newKey).body["keys"]?.arrayValue ?? []
        #expect(keys.count == 3)
        #expect(!keys.map(\.encoded).joined().contains(newKey))
    }

    @Test func keysAreStoredOnlyAsHashes() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        let file = try Data(contentsOf: t.directory.appendingPathComponent("herald.sqlite"))
        let wal = (try? Data(contentsOf: t.directory.appendingPathComponent("herald.sqlite-wal"))) ?? Data()
        for secret in [app.master, app.client] {
            #expect(file.range(of: Data(secret.utf8)) == nil && wal.range(of: Data(secret.utf8)) == nil)
        }
    }

    @Test func credentialsAreSealedAndNeverReturned() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        let list = await t.call("GET", "/v1/apps/\(app.id)/credentials", key: app.master)
        #expect(list.status == 200)
        #expect(list.body["credentials"]?.arrayValue?.count == 2)
        #expect(!list.text.contains("BEGIN PRIVATE KEY"))
        #expect(list.body["credentials"]?.arrayValue?.first?["keyId"] == "ABC123DEFG")
        let file = try Data(contentsOf: t.directory.appendingPathComponent("herald.sqlite"))
        let wal = (try? Data(contentsOf: t.directory.appendingPathComponent("herald.sqlite-wal"))) ?? Data()
        #expect(file.range(of: Data("MIGTAgEAMBMG".utf8)) == nil && wal.range(of: Data("MIGTAgEAMBMG".utf8)) == nil)
        let bad = await t.call("PUT", "/v1/apps/\(app.id)/credentials/production", key: app.master,
                               json: ["type": "token", "keyId": "short", "teamId": "TEAM123456", "key": "x"])
        #expect(bad.status == 422 && bad.errorField == "keyId")
    }

    @Test func rateLimitAnswers429WithRetryAfter() async throws {
        let t = try await TestService { $0.apiRateLimit = 1; $0.apiRateBurst = 2 }
        let app = try await t.createApp(withCredentials: false)
        var statuses: [Int] = []
        for _ in 0..<3 { statuses.append(await t.call("GET", "/v1/apps/\(app.id)", key: app.master).status) }
        #expect(statuses == [200, 200, 429])
        let limited = await t.call("GET", "/v1/apps/\(app.id)", key: app.master)
        #expect(limited.errorCode == "rate_limited")
        #expect(limited.headers["retry-after"] == "1")
        t.clock.advance(by: 1)
        #expect(await t.call("GET", "/v1/apps/\(app.id)", key: app.master).status == 200)
    }

    @Test func errorStatusesAndBodies() async throws {
        let t = try await TestService { $0.maxBodyBytes = 2_000 }
        let app = try await t.createApp()
        let badJSON = await t.call("POST", "/v1/installations", key: app.client, raw: Array("{nope".utf8))
        #expect(badJSON.status == 400 && badJSON.errorCode == "invalid_json")
        let tooBig = await t.call("POST", "/v1/installations", key: app.client, raw: Array(repeating: 0x20, count: 3_000))
        #expect(tooBig.status == 413 && tooBig.errorCode == "body_too_large")
        let unknownRoute = await t.call("GET", "/v1/nope", key: app.master)
        #expect(unknownRoute.status == 404 && unknownRoute.errorCode == "route_not_found")
        let wrongMethod = await t.call("PUT", "/v1/pushes", key: app.master)
        #expect(wrongMethod.status == 405)
        let pushID = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        try await t.deliver()
        let finished = await t.call("POST", "/v1/pushes/\(pushID)/cancel", key: app.master)
        #expect(finished.status == 409 && finished.errorCode == "push_finished")
        let invalid = await t.call("POST", "/v1/installations", key: app.client, json: ["installationId": "i", "environment": "dev"])
        #expect(invalid.status == 422 && invalid.errorField == "environment")
    }
}
