import Foundation
import Testing
@testable import HeraldClient

/// What the server would refuse is refused before it is stored, so it can never block later syncs.
@Suite struct InstallationRulesTests {
    @Test(arguments: ["two words", "a,b", "tab\there", "", String(repeating: "x", count: 65), "new\nline"])
    func tagsTheServerRefusesAreRefusedHere(tag: String) async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        await #expect(throws: HeraldClientError.self) { try await client.setTags(["ok", tag]) }
        await #expect(throws: HeraldClientError.self) { try await client.addTags([tag]) }
        #expect(await client.tags.isEmpty)
    }

    @Test func tagsInAnyScriptUpToSixtyFourBytesAreFine() async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        try await client.setTags(["新闻", "sports-2026", "vip:gold", String(repeating: "x", count: 64)])
        #expect(await client.tags.count == 4)
    }

    @Test func nestedOrOversizedPropertiesAreRefused() async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        await #expect(throws: HeraldClientError.self) { try await client.setProperty(["plan": "vip"], forKey: "account") }
        await #expect(throws: HeraldClientError.self) { try await client.setProperty([1, 2], forKey: "list") }
        let many = Dictionary(uniqueKeysWithValues: (0..<65).map { ("k\($0)", JSONValue.int($0)) })
        await #expect(throws: HeraldClientError.self) { try await client.setProperties(many) }
        await #expect(throws: HeraldClientError.self) {
            try await client.setProperty(.string(String(repeating: "x", count: 5000)), forKey: "big")
        }
        await #expect(throws: HeraldClientError.self) { try await client.setAlias(String(repeating: "a", count: 129)) }
        #expect(await client.properties.isEmpty)
        #expect(await client.alias == nil)
    }

    @Test func clearingAllPropertiesSendsAnEmptyObject() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        try await client.register(deviceToken: tokenData)
        try await client.setProperty(true, forKey: "beta")
        try await client.setProperties([:])
        let patch = try #require(server.requests.last?.json)
        #expect((patch["properties"] as? [String: Any])?.isEmpty == true)
        #expect((api.installation(client.installationId)?["properties"] as? [String: Any])?.isEmpty == true)
    }

    @Test(arguments: [
        ("en_US@rg=gbzzzz", "en_US"), ("zh-Hans_CN", "zh-Hans_CN"), ("ja_JP@calendar=japanese", "ja_JP"),
        ("en_001", "en_001"), ("", nil), ("x", nil), ("fr FR", nil),
    ] as [(String, String?)])
    func localesAreSentInTheFormTheServerAccepts(identifier: String, sent: String?) async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server, device: {
            var device = fixedDevice
            device.locale = identifier
            return device
        })
        try await client.register(deviceToken: tokenData)
        #expect(server.requests.first?.json?.string("locale") == sent)
    }

    @Test func aChangeTheServerRefusesIsDroppedSoLaterChangesStillFlow() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        try await client.register(deviceToken: tokenData)
        try await client.setAlias("first")
        server.enqueue(.json(422, #"{"error":{"code":"invalid","message":"alias is reserved","field":"alias"}}"#))

        await #expect(throws: HeraldClientError.rejected(status: 422, code: "invalid", message: "alias is reserved", field: "alias")) {
            try await client.setAlias("admin")
        }

        #expect(await client.alias == "first")
        #expect(await client.hasPendingChanges == false)
        try await client.setUserId("u-1")
        let patch = try #require(server.requests.last?.json)
        #expect(patch.keys == ["userId"])
        #expect(api.installation(client.installationId)?["alias"] as? String == "first")
    }

    @Test func aRefusedTagChangeIsDroppedToo() async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        try await client.register(deviceToken: tokenData)
        try await client.setTags(["news"])
        server.enqueue(.json(422, #"{"error":{"code":"invalid","message":"too many tags","field":"add[0]"}}"#))
        await #expect(throws: HeraldClientError.self) { try await client.addTags(["sports"]) }
        #expect(await client.tags == ["news"])
        #expect(await client.hasPendingChanges == false)
    }
}
