import Foundation
import Testing
@testable import HeraldClient

@Suite struct InstallationSyncTests {
    @Test func registerUploadsTokenAndDeviceFacts() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)

        try await client.register(deviceToken: tokenData)

        let requests = server.requests
        #expect(requests.count == 1)
        let request = try #require(requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/v1/installations")
        #expect(request.headers["authorization"] == "Bearer ck_test")
        #expect(request.headers["content-type"]?.hasPrefix("application/json") == true)
        let body = try #require(request.json)
        #expect(body.string("installationId") == client.installationId)
        #expect(body.string("deviceToken") == DeviceToken(tokenData).hex)
        #expect(body.string("environment") == "sandbox")
        #expect(body.string("topic") == "com.example.news")
        #expect(body.string("locale") == "zh-Hans_CN")
        #expect(body.string("timeZone") == "Asia/Shanghai")
        #expect(body.string("appVersion") == "2.1.0")
        #expect(body.string("osVersion") == "17.2.1")
        #expect(body.string("deviceModel") == "iPhone15,2")
        #expect(api.installation(client.installationId)?["deviceToken"] as? String == DeviceToken(tokenData).hex)

        let installation = try #require(await client.installation)
        #expect(installation.installationId == client.installationId)
        #expect(installation.active)
        // 2026-11-30T01:00:00Z without and with fractional seconds.
        #expect(installation.createdAt == Date(timeIntervalSince1970: 1_796_000_400))
        #expect(abs((installation.updatedAt?.timeIntervalSince1970 ?? 0) - 1_796_000_400.123) < 0.001)
    }

    @Test func registeringTheSameTokenAgainSendsNothing() async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        let storage = InMemoryStorage()
        let client = try makeClient(server: server, storage: storage)
        try await client.register(deviceToken: tokenData)
        try await client.register(deviceToken: tokenData)
        // A relaunch registers again: still nothing to send.
        let relaunched = try makeClient(server: server, storage: storage)
        try await relaunched.register(deviceToken: tokenData)
        #expect(server.requests.count == 1)
        #expect(await relaunched.hasPendingChanges == false)
    }

    @Test func aNewTokenIsPatchedOntoTheSameInstallation() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        try await client.register(deviceToken: tokenData)
        let newToken = Data(repeating: 0xab, count: 32)

        try await client.register(deviceToken: newToken)

        let patch = try #require(server.requests.last)
        #expect(patch.method == "PATCH")
        #expect(patch.path == "/v1/installations/\(client.installationId)")
        #expect(try #require(patch.json).keys == ["deviceToken"])
        #expect(api.installation(client.installationId)?["deviceToken"] as? String == String(repeating: "ab", count: 32))
    }

    @Test func aChangedLocaleIsSentWithTheNextRegistration() async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        let locale = LockedValue("zh-Hans_CN")
        let client = try makeClient(server: server, device: {
            var device = fixedDevice
            device.locale = locale.value
            return device
        })
        try await client.register(deviceToken: tokenData)
        locale.value = "en_US"
        try await client.register(deviceToken: tokenData)
        let patch = try #require(server.requests.last?.json)
        #expect(patch.keys == ["locale"])
        #expect(patch.string("locale") == "en_US")
    }

    @Test func nothingIsSentBeforeRegistrationAndEverythingWithIt() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        try await client.setTags(["news", "sports"])
        try await client.setAlias("user_42")
        try await client.setUserId("u-42")
        try await client.setProperty("vip", forKey: "plan")
        #expect(server.requests.isEmpty)

        try await client.register(deviceToken: tokenData)

        #expect(server.requests.count == 1)
        let body = try #require(server.requests.first?.json)
        #expect(body.strings("tags") == ["news", "sports"])
        #expect(body.string("alias") == "user_42")
        #expect(body.string("userId") == "u-42")
        #expect((body["properties"] as? [String: Any])?["plan"] as? String == "vip")
        #expect(api.installation(client.installationId)?["alias"] as? String == "user_42")
    }

    @Test func tagChangesGoThroughTheTagsEndpointAsAddAndRemove() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        try await client.register(deviceToken: tokenData)
        try await client.setTags(["news", "sports"])
        try await client.addTags(["vip"])
        try await client.removeTags(["sports"])
        try await client.removeTags(["not-there"])

        let tagRequests = server.requests.filter { $0.path.hasSuffix("/tags") }
        #expect(tagRequests.count == 3)
        #expect(tagRequests.map { $0.json?.strings("add") ?? [] } == [["news", "sports"], ["vip"], []])
        #expect(tagRequests.map { $0.json?.strings("remove") ?? [] } == [[], [], ["sports"]])
        #expect(api.installation(client.installationId)?["tags"] as? [String] == ["news", "vip"])
        #expect(await client.tags == ["news", "vip"])
    }

    @Test func aliasUserIdAndPropertiesArePatchedAndClearedWithNull() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        try await client.register(deviceToken: tokenData)
        try await client.setAlias("user_42")
        try await client.setUserId("u-42")
        try await client.setProperties(["level": 3])
        try await client.setAlias(nil)

        let patches = server.requests.filter { $0.method == "PATCH" }.compactMap(\.json)
        #expect(patches.map(\.keys) == [["alias"], ["userId"], ["properties"], ["alias"]])
        #expect(patches.last?["alias"] is NSNull)
        let stored = try #require(api.installation(client.installationId))
        #expect(stored["alias"] == nil)
        #expect(stored["userId"] as? String == "u-42")
        #expect((stored["properties"] as? [String: Any])?["level"] as? Int == 3)
    }

    @Test func blankTagsAndAliasesAreRefusedBeforeAnythingIsStored() async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        await #expect(throws: HeraldClientError.self) { try await client.setTags(["ok", " "]) }
        await #expect(throws: HeraldClientError.self) { try await client.setAlias("") }
        #expect(await client.tags.isEmpty)
        #expect(await client.alias == nil)
    }

    @Test func anInstallationDeletedOnTheServerIsCreatedAgain() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        try await client.register(deviceToken: tokenData)
        api.forget(client.installationId)

        try await client.setAlias("back")

        #expect(server.requests.map(\.method) == ["POST", "PATCH", "POST"])
        #expect(api.installation(client.installationId)?["alias"] as? String == "back")
        #expect(api.installation(client.installationId)?["deviceToken"] as? String == DeviceToken(tokenData).hex)
    }

    @Test func anUnchangedInstallationIsRevalidatedOnceTheIntervalPasses() async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        let clock = TestClock()
        let client = try makeClient(server: server, clock: clock)
        try await client.register(deviceToken: tokenData)
        clock.advance(by: 3600)
        try await client.register(deviceToken: tokenData)
        #expect(server.requests.count == 1)

        clock.advance(by: 24 * 3600)
        try await client.register(deviceToken: tokenData)

        #expect(server.requests.count == 2)
        #expect(server.requests.last?.method == "POST")
        #expect(server.requests.last?.json?.string("deviceToken") == DeviceToken(tokenData).hex)
    }

    @Test func unregisterDeletesTheInstallationAndRegisteringAgainRecreatesIt() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        try await client.setTags(["news"])
        try await client.register(deviceToken: tokenData)

        try await client.unregister()

        #expect(server.requests.last?.method == "DELETE")
        #expect(api.installation(client.installationId) == nil)
        #expect(await client.isRegistered == false)
        try await client.setAlias("later")
        #expect(server.requests.count == 2)

        try await client.register(deviceToken: tokenData)
        let recreated = try #require(server.requests.last)
        #expect(recreated.method == "POST")
        #expect(recreated.json?.strings("tags") == ["news"])
        #expect(recreated.json?.string("alias") == "later")
    }

    @Test func concurrentChangesAllReachTheServer() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        try await client.register(deviceToken: tokenData)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask { try await client.addTags(["t\(index)"]) }
            }
            try await group.waitForAll()
        }
        #expect(Set(api.installation(client.installationId)?["tags"] as? [String] ?? []) == Set((0..<8).map { "t\($0)" }))
        #expect(await client.hasPendingChanges == false)
    }

    @Test func aWrongClientKeyIsAClearRejection() async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server, clientKey: "ck_wrong")
        await #expect {
            try await client.register(deviceToken: tokenData)
        } throws: { error in
            guard case HeraldClientError.rejected(401, "unauthorized", _, _) = error else { return false }
            return "\(error)".contains("clientKey")
        }
        #expect(server.requests.count == 1)
    }
}

/// A value shared between a test and a closure it hands to the client.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}
