import Foundation
import Testing
import HeraldHTTP
@testable import HeraldServer

/// What the console's device page and Apps screen read: an installation's deliveries, newest first, and how
/// APNs last answered each credential (kept in memory, flushed to the store, hidden once replaced).
@Suite struct ConsoleHistoryAPITests {
    @Test func aDevicesDeliveriesAreListedNewestFirstWithTheirOutcomeAndPaged() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        try await t.register(app, "phone", token: token(1))
        try await t.register(app, "tablet", token: token(2))
        let first = try await t.push(app, ["target": ["all": true], "content": ["alert": ["title": "First", "body": "one"]]])
        try await t.deliver()
        t.transport.answer { DeliveryResult(id: $0.id, status: 400, reason: "BadTopic") }
        let second = try await t.push(app, ["target": ["installationIds": ["phone"]], "content": ["alert": "Second"]])
        try await t.deliver()

        let page = await t.call("GET", "/v1/installations/phone/deliveries?limit=1", key: app.master)
        #expect(page.status == 200, "\(page.text)")
        let newest = try #require(page.body["deliveries"]?.arrayValue?.first)
        #expect(newest["pushId"]?.stringValue == second && newest["summary"] == "Second")
        #expect(newest["state"] == "failed" && newest["reason"] == "BadTopic" && newest["status"] == 400 && newest["apnsId"] == .null)
        let cursor = try #require(page.body["nextCursor"]?.stringValue)
        let next = await t.call("GET", "/v1/installations/phone/deliveries?limit=1&cursor=\(cursor)", key: app.master)
        let older = try #require(next.body["deliveries"]?.arrayValue?.first)
        #expect(older["pushId"]?.stringValue == first && older["summary"] == "First" && older["state"] == "sent")
        #expect(older["apnsId"]?.stringValue?.count == 36 && older["pushStatus"] == "done")
        #expect(await t.call("GET", "/v1/installations/phone/deliveries?limit=1&cursor=\(older["pushId"]?.stringValue ?? "")", key: app.master).errorField == "cursor")
        // The tablet was not targeted by the second push.
        #expect(await t.call("GET", "/v1/installations/tablet/deliveries", key: app.master).body["deliveries"]?.arrayValue?.count == 1)

        let other = try await t.createApp("Other", topic: "com.example.other")
        #expect(await t.call("GET", "/v1/installations/phone/deliveries", key: other.master).status == 404)
        #expect(await t.call("GET", "/v1/installations/phone/deliveries", key: app.client).status == 403)
        #expect(await t.call("GET", "/v1/installations/nobody/deliveries", key: app.master).status == 404)
    }

    @Test func aCredentialShowsWhenAPNsLastAcceptedAndRejectedIt() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        try await t.register(app, "phone", token: token(1))
        func production() async throws -> JSON {
            let r = await t.call("GET", "/v1/apps/\(app.id)/credentials", key: app.master)
            return try #require(r.body["credentials"]?.arrayValue?.first { $0["environment"] == "production" }, "\(r.text)")
        }
        #expect(try await production()["state"] == "unused")

        t.clock.advance(by: 10)
        _ = try await t.push(app, ["target": ["all": true], "content": ["alert": "Hi"]])
        try await t.deliver()
        let accepted = try await production()
        #expect(accepted["state"] == "accepted" && accepted["lastAcceptedAt"]?.stringValue != nil && accepted["lastRejectedAt"] == .null)

        t.clock.advance(by: 10)
        t.transport.answer { DeliveryResult(id: $0.id, status: 403, reason: "ExpiredProviderToken") }
        _ = try await t.push(app, ["target": ["all": true], "content": ["alert": "Again"]])
        try await t.deliver()
        let rejected = try await production()
        #expect(rejected["state"] == "rejected" && rejected["lastRejectionReason"] == "ExpiredProviderToken")
        #expect(rejected["lastAcceptedAt"] == accepted["lastAcceptedAt"])

        // Written to the store by the flush (the periodic one, or at a stop), and read back from there.
        try await t.service.env.credentialOutcomes.flush(to: t.service.store)
        let stored = try await t.service.store.credentialOutcomes(appID: app.id)
        #expect(stored.map(\.environment) == ["production"] && stored.first?.rejectedReason == "ExpiredProviderToken" && stored.first?.acceptedAt != nil)
        #expect(t.service.env.credentialOutcomes.merged(appID: app.id, stored: []).isEmpty, "nothing left unflushed")
        #expect(try await production()["state"] == "rejected")

        // A new credential starts with no answers: the old ones were the replaced credential's.
        t.clock.advance(by: 10)
        #expect(await t.call("PUT", "/v1/apps/\(app.id)/credentials/production", key: app.master, json: p8Credential).status == 200)
        let replaced = try await production()
        #expect(replaced["state"] == "unused" && replaced["lastAcceptedAt"] == .null && replaced["lastRejectionReason"] == .null)
    }
}
