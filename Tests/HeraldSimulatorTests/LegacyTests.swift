import APNSCore
import Foundation
import Testing
@testable import HeraldSimulator

@Suite("Legacy binary API and feedback service")
struct LegacyTests {
    let f: Fixture
    let identity = CertificateScope(bundleID: Fixture.bundleID, topics: [], environments: [.sandbox])
    var tokenBytes: [UInt8] { LegacyFeedbackConnection.bytes(fromHex: f.token)! }
    let payload = Array(#"{"aps":{"alert":"legacy"}}"#.utf8)

    init() throws { f = try Fixture() }

    @Test func commandsZeroOneAndTwoAreDeliveredWithoutAReply() throws {
        let gateway = f.simulator.legacyGatewayConnection(environment: .sandbox, scope: identity)
        var bytes = try LegacyNotification.simple(deviceToken: tokenBytes, payload: payload).encoded()
        bytes += try LegacyNotification.enhanced(identifier: 7, expiry: 0, deviceToken: tokenBytes, payload: payload).encoded()
        bytes += try LegacyNotification.frame(deviceToken: tokenBytes, payload: payload, identifier: 8, expiry: 0, priority: 5).encoded()
        // Arbitrary chunking, as TCP delivers it.
        for chunk in stride(from: 0, to: bytes.count, by: 7).map({ Array(bytes[$0..<min($0 + 7, bytes.count)]) }) {
            let (reply, close) = gateway.receive(chunk)
            #expect(reply.isEmpty && !close)
        }
        #expect(f.inbox.count == 3)
        #expect(f.inbox.map(\.source) == [.legacy, .legacy, .legacy])
        #expect(f.inbox.map(\.priority) == [10, 10, 5])
        #expect(f.inbox[2].headers["legacy-identifier"] == "8")
        #expect(f.simulator.statistics.accepted == 3)
    }

    @Test func unknownTokenGetsStatus8WithTheIdentifierAndTheRestIsDiscarded() throws {
        let gateway = f.simulator.legacyGatewayConnection(environment: .sandbox, scope: identity)
        var unknown = tokenBytes
        unknown[0] ^= 0xFF
        var bytes = try LegacyNotification.enhanced(identifier: 41, expiry: 0, deviceToken: tokenBytes, payload: payload).encoded()
        bytes += try LegacyNotification.enhanced(identifier: 42, expiry: 0, deviceToken: unknown, payload: payload).encoded()
        bytes += try LegacyNotification.enhanced(identifier: 43, expiry: 0, deviceToken: tokenBytes, payload: payload).encoded()
        let (reply, close) = gateway.receive(bytes)
        #expect(close)
        #expect(try LegacyErrorResponse(bytes: reply) == LegacyErrorResponse(status: .invalidToken, identifier: 42))
        #expect(f.inbox.count == 1)
        #expect(gateway.receive(try LegacyNotification.simple(deviceToken: tokenBytes, payload: payload).encoded()) == ([], true))
        #expect(f.inbox.count == 1)
    }

    @Test func payloadLimitIs2048InEveryFormat() throws {
        let big = Array(#"{"aps":{"alert":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 2030) + Array(#""}}"#.utf8)
        #expect(big.count > 2048)
        for notification in [LegacyNotification.simple(deviceToken: tokenBytes, payload: big),
                             .enhanced(identifier: 9, expiry: 0, deviceToken: tokenBytes, payload: big),
                             .frame(deviceToken: tokenBytes, payload: big, identifier: 9)] {
            let gateway = f.simulator.legacyGatewayConnection(environment: .sandbox, scope: identity)
            var bytes = [notification.format.rawValue]
            // Encode by hand: the codec refuses to write an oversized payload.
            switch notification.format {
            case .simple: bytes += be16(tokenBytes.count) + tokenBytes + be16(big.count) + big
            case .enhanced: bytes += [0, 0, 0, 9, 0, 0, 0, 0] + be16(tokenBytes.count) + tokenBytes + be16(big.count) + big
            case .frame:
                let items = [1] + be16(tokenBytes.count) + tokenBytes + [2] + be16(big.count) + big + [3, 0, 4, 0, 0, 0, 9]
                bytes += [0, 0, UInt8(items.count >> 8), UInt8(items.count & 0xFF)] + items
            }
            let (reply, close) = gateway.receive(bytes)
            #expect(close)
            #expect(reply.count == 6 && reply[0] == 8 && reply[1] == 7, "format \(notification.format)")
        }
        #expect(f.inbox.isEmpty)
    }

    func be16(_ n: Int) -> [UInt8] { [UInt8(n >> 8), UInt8(n & 0xFF)] }

    @Test func tokenOfAnotherAppOrEnvironmentIsAnInvalidToken() throws {
        let other = CertificateScope(bundleID: "com.example.other", topics: [], environments: [.sandbox])
        let gateway = f.simulator.legacyGatewayConnection(environment: .sandbox, scope: other)
        let (reply, _) = gateway.receive(try LegacyNotification.enhanced(identifier: 5, expiry: 0, deviceToken: tokenBytes, payload: payload).encoded())
        #expect(try LegacyErrorResponse(bytes: reply) == LegacyErrorResponse(status: .invalidToken, identifier: 5))
        let prodIdentity = CertificateScope(bundleID: Fixture.bundleID, topics: [], environments: [.production])
        let prod = f.simulator.legacyGatewayConnection(environment: .production, scope: prodIdentity)
        #expect(try LegacyErrorResponse(bytes: prod.receive(try LegacyNotification.enhanced(identifier: 6, expiry: 0, deviceToken: tokenBytes, payload: payload).encoded()).reply).status == .invalidToken)
    }

    @Test func malformedFrameGetsAnErrorPacketAndCloses() throws {
        let gateway = f.simulator.legacyGatewayConnection(environment: .sandbox, scope: identity)
        let (reply, close) = gateway.receive([9, 1, 2, 3])
        #expect(close)
        #expect(reply.count == 6 && reply[0] == 8)
    }

    @Test func feedbackListsUninstalledTokensOnceThenForgetsThem() throws {
        f.clock.advance(100)
        let uninstalledAt = f.clock.now
        try f.simulator.uninstall(bundleID: Fixture.bundleID, from: f.device.id)
        // A push to the uninstalled app is still accepted on the binary API (no per-notification 410).
        let gateway = f.simulator.legacyGatewayConnection(environment: .sandbox, scope: identity)
        #expect(gateway.receive(try LegacyNotification.simple(deviceToken: tokenBytes, payload: payload).encoded()) == ([], false))
        #expect(f.simulator.legacyFeedbackConnection(environment: .production, scope: identity).opened().reply.isEmpty)
        let (bytes, close) = f.simulator.legacyFeedbackConnection(environment: .sandbox, scope: identity).opened()
        #expect(close)
        var decoder = LegacyFeedbackDecoder()
        decoder.append(bytes)
        let tuple = try #require(try decoder.next())
        #expect(tuple.deviceToken == tokenBytes)
        #expect(tuple.timestamp == UInt32(uninstalledAt.timeIntervalSince1970))
        #expect(try decoder.next() == nil)
        #expect(f.simulator.legacyFeedbackConnection(environment: .sandbox, scope: identity).opened().reply.isEmpty)
    }
}
