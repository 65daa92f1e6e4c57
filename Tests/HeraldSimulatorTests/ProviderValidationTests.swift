import Foundation
import HeraldHTTP
import Testing
@testable import HeraldSimulator

@Suite("Provider API validation")
struct ProviderValidationTests {
    @Test func acceptedNotificationReachesTheDeviceWithItsHeaders() throws {
        let f = try Fixture()
        let id = "3f2a8d7c-1b4e-4c2a-9d8e-0123456789ab"
        let response = f.send(push(to: f.token, headers: [("apns-id", id), ("apns-collapse-id", "score")],
                                   body: #"{"aps":{"alert":"Goal!"},"match":7}"#))
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.headers["apns-id"] == id)
        #expect(response.headers["apns-unique-id"] != nil)
        let received = try #require(f.inbox.last)
        #expect(received.apnsID == id)
        #expect(received.collapseID == "score")
        #expect(received.headers["apns-collapse-id"] == "score")
        #expect(String(decoding: received.payload, as: UTF8.self).contains("Goal!"))
        #expect(received.deliveredAt == f.clock.now)
    }

    @Test func generatesACanonicalApnsIDAndNoUniqueIDInProduction() throws {
        let f = try Fixture()
        let prodToken = try f.simulator.install(bundleID: "com.example.prod", environment: .production, on: f.device.id).token
        let connection = ConnectionAuthState(environment: .production, credential: .certificate(
            CertificateScope(bundleID: "com.example.prod", topics: [], environments: [.production])))
        let response = f.send(push(to: prodToken, topic: "com.example.prod"), on: connection)
        #expect(response.status == 200)
        let id = try #require(response.headers["apns-id"])
        #expect(APNSIDGenerator.isCanonicalUUID(id) && id == id.lowercased())
        #expect(response.headers["apns-unique-id"] == nil)
        #expect(f.send(push(to: prodToken, topic: "com.example.prod"), on: connection).headers["apns-id"] != id)
    }

    @Test("method, path and device-token reasons", arguments: [
        (push(to: "T", method: "GET"), 405, "MethodNotAllowed"),
        (HTTPRequest(method: "POST", target: "/2/device/abc"), 404, "BadPath"),
        (HTTPRequest(method: "POST", target: "/3/device/"), 400, "MissingDeviceToken"),
        (HTTPRequest(method: "POST", target: "/3/device/aa/bb"), 404, "BadPath"),
        (push(to: "not-hex"), 400, "BadDeviceToken"),
        (push(to: String(repeating: "ab", count: 31)), 400, "BadDeviceToken"),
        (push(to: String(repeating: "ab", count: 32)), 400, "BadDeviceToken"),
    ])
    func pathRules(request: HTTPRequest, status: Int, reason: String) throws {
        let f = try Fixture()
        let response = f.send(request)
        #expect(response.status == status)
        #expect(response.reason == reason)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["apns-id"] != nil)
        #expect(f.simulator.statistics.rejected[reason] == 1)
    }

    @Test("header reasons", arguments: [
        ([("apns-id", "not-a-uuid")], "BadMessageId"),
        ([("apns-expiration", "soon")], "BadExpirationDate"),
        ([("apns-expiration", "-5")], "BadExpirationDate"),
        ([("apns-priority", "7")], "BadPriority"),
        ([("apns-priority", "high")], "BadPriority"),
        ([("apns-push-type", "background"), ("apns-priority", "10")], "BadPriority"),
        ([("apns-push-type", "background")], "BadPriority"),
        ([("apns-push-type", "telepathy")], "InvalidPushType"),
        ([("apns-push-type", "voip")], "InvalidPushType"),
        ([("apns-collapse-id", String(repeating: "é", count: 33))], "BadCollapseId"),
        ([("apns-priority", "10"), ("apns-priority", "5")], "DuplicateHeaders"),
        ([("apns-topic", "com.example.other")], "BadTopic"),
    ])
    func headerRules(headers: [(String, String)], reason: String) throws {
        let f = try Fixture()
        let response = f.send(push(to: f.token, headers: headers))
        #expect(response.status == 400)
        #expect(response.reason == reason)
        #expect(f.inbox.isEmpty)
    }

    @Test func badMessageIDGetsAFreshIDInTheAnswer() throws {
        let f = try Fixture()
        let response = f.send(push(to: f.token, headers: [("apns-id", "xyz")]))
        #expect(response.reason == "BadMessageId")
        #expect(APNSIDGenerator.isCanonicalUUID(response.headers["apns-id"] ?? ""))
    }

    @Test("header values that are accepted", arguments: [
        [("apns-priority", "1")], [("apns-priority", "5")], [("apns-push-type", "background"), ("apns-priority", "5")],
        [("apns-collapse-id", String(repeating: "x", count: 64))], [("apns-expiration", "0")],
        [("apns-id", "3F2A8D7C-1B4E-4C2A-9D8E-0123456789AB")],
    ])
    func acceptedHeaders(headers: [(String, String)]) throws {
        let f = try Fixture()
        #expect(f.send(push(to: f.token, headers: headers)).status == 200)
    }

    @Test func tokenOfTheOtherEnvironmentIsABadDeviceToken() throws {
        let f = try Fixture()
        let production = f.certificateConnection(.production, environments: [.sandbox, .production])
        let response = f.send(push(to: f.token), on: production)
        #expect(response.status == 400)
        #expect(response.reason == "BadDeviceToken")
    }

    @Test func tokenOfAnotherAppIsNotForTheTopic() throws {
        let f = try Fixture()
        let other = try f.simulator.install(bundleID: "com.example.other", environment: .sandbox, on: f.device.id).token
        let response = f.send(push(to: other))
        #expect(response.status == 400)
        #expect(response.reason == "DeviceTokenNotForTopic")
    }

    @Test func uninstalledAppAnswers410WithTheUninstallTimeInMilliseconds() throws {
        let f = try Fixture()
        f.clock.advance(12.345)
        let uninstalledAt = f.clock.now
        try f.simulator.uninstall(bundleID: Fixture.bundleID, from: f.device.id)
        f.clock.advance(60)
        let response = f.send(push(to: f.token))
        #expect(response.status == 410)
        #expect(response.reason == "Unregistered")
        #expect((response.json["timestamp"] as? NSNumber)?.int64Value == Int64((uninstalledAt.timeIntervalSince1970 * 1000).rounded()))
    }

    @Test func reinstallIssuesANewTokenAndTheOldOneStays410() throws {
        let f = try Fixture()
        try f.simulator.uninstall(bundleID: Fixture.bundleID, from: f.device.id)
        let fresh = try f.simulator.install(bundleID: Fixture.bundleID, environment: .sandbox, on: f.device.id).token
        #expect(fresh != f.token)
        #expect(f.send(push(to: f.token)).status == 410)
        #expect(f.send(push(to: fresh)).status == 200)
    }

    @Test("body reasons", arguments: [
        ("", 400, "PayloadEmpty"),
        ("not json", 400, "BadPayload"),
        ("[1,2]", 400, "BadPayload"),
        (#"{"aps":{"alert":""# + String(repeating: "a", count: 4080) + #""}}"#, 413, "PayloadTooLarge"),
    ])
    func bodyRules(body: String, status: Int, reason: String) throws {
        let f = try Fixture()
        let response = f.send(push(to: f.token, body: body))
        #expect(response.status == status)
        #expect(response.reason == reason)
    }

    /// A connection remembers the last payload that passed (and its badge): that memory must never let a
    /// different payload through unchecked, nor give it the old badge.
    @Test func aPayloadDifferentFromTheLastOneIsCheckedAgain() throws {
        let f = try Fixture()
        let connection = f.certificateConnection()
        let good = #"{"aps":{"badge":3}}"#
        let bad = #"{"aps":{"badge":3}"#  // the same bytes but one, and not JSON
        #expect(f.send(push(to: f.token, body: good), on: connection).status == 200)
        #expect(f.send(push(to: f.token, body: good), on: connection).status == 200)
        #expect(f.send(push(to: f.token, body: bad + " "), on: connection).reason == "BadPayload")
        #expect(f.send(push(to: f.token, body: #"{"aps":{"badge":7}}"#), on: connection).status == 200)
        #expect(f.inbox.map(\.badge) == [3, 3, 7])
        #expect(f.simulator.device(f.device.id)?.badges[Fixture.bundleID] == 7)
    }

    @Test func generatedIDsAreCanonicalUUIDsOfTheirBits() {
        #expect(APNSIDGenerator.format(0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210) == "01234567-89ab-cdef-fedc-ba9876543210")
    }

    @Test func payloadLimitIs4096ButVoIPGets5120() throws {
        let f = try Fixture()
        func body(_ size: Int) -> String {
            let frame = #"{"aps":{},"x":""}"#
            return #"{"aps":{},"x":""# + String(repeating: "a", count: size - frame.utf8.count) + #""}"#
        }
        #expect(f.send(push(to: f.token, body: body(4096))).status == 200)
        #expect(f.send(push(to: f.token, body: body(4097))).status == 413)
        let voip = [("apns-push-type", "voip")]
        #expect(f.send(push(to: f.token, topic: Fixture.bundleID + ".voip", headers: voip, body: body(5120))).status == 200)
        #expect(f.send(push(to: f.token, topic: Fixture.bundleID + ".voip", headers: voip, body: body(5121))).status == 413)
    }

    @Test func pushTypeIsInferredFromTheTopicSuffix() throws {
        let f = try Fixture()
        #expect(f.send(push(to: f.token, topic: Fixture.bundleID + ".complication")).status == 200)
        #expect(f.inbox.last?.pushType == "complication")
        #expect(f.inbox.last?.bundleID == Fixture.bundleID)
    }

    @Test func perDeviceRateLimitAnswers429UntilTheBucketRefills() throws {
        let f = try Fixture { $0.perDeviceRateLimit = .init(requestsPerSecond: 2, burst: 3) }
        let statuses = (0..<4).map { _ in f.send(push(to: f.token)).status }
        #expect(statuses == [200, 200, 200, 429])
        #expect(f.send(push(to: f.token)).reason == "TooManyRequests")
        f.clock.advance(0.5)
        #expect(f.send(push(to: f.token)).status == 200)
        #expect(f.inbox.count == 4)
    }

    @Test func tokenLengthRuleIsConfigurable() throws {
        let f = try Fixture { $0.tokens = DeviceTokenRule(issuedByteCount: 8, acceptedByteCounts: 8...100) }
        #expect(f.token.count == 16)
        #expect(f.send(push(to: f.token)).status == 200)
        #expect(f.send(push(to: f.token.uppercased())).status == 200)
        let strict = try Fixture { $0.tokens = DeviceTokenRule(acceptsUppercase: false) }
        #expect(strict.send(push(to: strict.token.uppercased())).reason == "BadDeviceToken")
    }

    @Test func invalidConfigurationIsRefusedWithTheField() {
        var c = SimulatorConfiguration()
        c.tokens = DeviceTokenRule(issuedByteCount: 16, acceptedByteCounts: 32...32)
        #expect(throws: SimulatorError.self) { try Simulator(configuration: c) }
        c = SimulatorConfiguration()
        c.faults.internalServerErrorRate = 2
        do {
            _ = try Simulator(configuration: c)
            Issue.record("a rate of 2 was accepted")
        } catch {
            #expect("\(error)".contains("faults.internalServerErrorRate"))
        }
    }

    @Test func countersSplitAcceptedAndRejectedByReason() throws {
        let f = try Fixture()
        _ = f.send(push(to: f.token))
        _ = f.send(push(to: f.token))
        _ = f.send(push(to: f.token, body: ""))
        let stats = f.simulator.statistics
        #expect(stats.accepted == 2)
        #expect(stats.rejected == ["PayloadEmpty": 1])
        #expect(stats.delivered == 2)
    }

    @Test func sameApnsIDTwiceIsCountedAsADuplicate() throws {
        let f = try Fixture()
        let id = [("apns-id", "3f2a8d7c-1b4e-4c2a-9d8e-0123456789ab")]
        _ = f.send(push(to: f.token, headers: id))
        _ = f.send(push(to: f.token, headers: id))
        _ = f.send(push(to: f.token))
        #expect(f.simulator.statistics.duplicates == ["3f2a8d7c-1b4e-4c2a-9d8e-0123456789ab": 2])
    }
}

@Suite("Counting mode")
struct CountingModeTests {
    @Test func acceptAllAnswers200ToAnythingAndOnlyCounts() throws {
        let f = try Fixture { $0.mode = .acceptAll }
        let id = "3f2a8d7c-1b4e-4c2a-9d8e-0123456789ab"
        let echoed = f.simulator.provider.acceptAll(push(to: "not-even-a-token", headers: [("apns-id", id)], body: ""), environment: .sandbox)
        #expect(echoed.status == 200 && echoed.headers["apns-id"] == id)
        // Answered like a validated success: sandbox adds apns-unique-id, production does not.
        #expect(APNSIDGenerator.isCanonicalUUID(echoed.headers["apns-unique-id"] ?? ""))
        let generated = f.simulator.provider.acceptAll(HTTPRequest(method: "GET", target: "/anything"), environment: .production)
        #expect(APNSIDGenerator.isCanonicalUUID(generated.headers["apns-id"] ?? ""))
        #expect(generated.headers["apns-unique-id"] == nil)
        #expect(f.simulator.statistics.accepted == 2)
        #expect(f.inbox.isEmpty)
        f.simulator.reset()
        #expect(f.simulator.statistics.accepted == 0)
    }
}
