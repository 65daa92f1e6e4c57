import Foundation
import HeraldHTTP
import Testing
@testable import HeraldSimulator

@Suite("Token authentication (JWT)")
struct TokenAuthTests {
    let f: Fixture
    let key: TestKey

    init() throws {
        f = try Fixture()
        key = try TestKey()
        try f.simulator.registerSigningKey(key.signingKey())
    }

    func tokenConnection(_ environment: PushEnvironment = .sandbox) -> ConnectionAuthState {
        ConnectionAuthState(environment: environment, credential: .providerToken)
    }

    func send(bearer: String?, on connection: ConnectionAuthState, topic: String? = Fixture.bundleID) -> HTTPResponse {
        f.send(push(to: f.token, topic: topic, headers: bearer.map { [("authorization", "bearer \($0)")] } ?? []), on: connection)
    }

    @Test func validTokenIsAcceptedAndRaisesTheStreamLimitOnce() throws {
        let connection = tokenConnection()
        let jwt = try key.token(issuedAt: f.clock.now)
        #expect(send(bearer: jwt, on: connection).status == 200)
        #expect(connection.pendingMaxConcurrentStreams.map(f.simulator.provider.resolvedStreamLimit) == 1000)
        connection.pendingMaxConcurrentStreams = nil
        #expect(send(bearer: jwt, on: connection).status == 200)
        #expect(connection.pendingMaxConcurrentStreams == nil)
    }

    @Test func streamLimitStaysAtOneUntilATokenIsValid() throws {
        let connection = tokenConnection()
        #expect(send(bearer: nil, on: connection).reason == "MissingProviderToken")
        #expect(send(bearer: "garbage", on: connection).reason == "InvalidProviderToken")
        #expect(connection.pendingMaxConcurrentStreams == nil)
    }

    @Test("missing or empty authorization", arguments: [nil, "", "bearer", "bearer    ", "Basic abc"])
    func missingProviderToken(header: String?) throws {
        var headers: [(String, String)] = []
        if let header { headers.append(("authorization", header)) }
        let response = f.send(push(to: f.token, headers: headers), on: tokenConnection())
        #expect(response.status == 403)
        #expect(response.reason == "MissingProviderToken")
    }

    /// What Apple accepts: APNSwift's tokens (pretty-printed, `typ`, string `iat`, `kid` in the claims);
    /// kalyke-apns sends a string `iat` too.
    @Test func apnswiftStyleTokensWithAStringIssueTimeAreAccepted() throws {
        let connection = tokenConnection()
        let jwt = try key.apnswiftToken(iat: String(Int(f.clock.now.timeIntervalSince1970)))
        #expect(send(bearer: jwt, on: connection).status == 200)
        #expect(f.inbox.count == 1)
        f.clock.advance(3601)
        #expect(send(bearer: jwt, on: connection).reason == "ExpiredProviderToken", "a string iat ages like a number")
    }

    @Test("iat that is not a number of seconds", arguments: [nil, "soon", "", "1.7e9", "-1", "1780000000.5", " 1780000000", "0x6A1B"])
    func issueTimesThatAreNotSecondsAreInvalid(iat: String?) throws {
        #expect(send(bearer: try key.apnswiftToken(iat: iat), on: tokenConnection()).reason == "InvalidProviderToken")
    }

    @Test func invalidTokensAreInvalidProviderToken() throws {
        let now = f.clock.now
        let other = try TestKey()  // same ids, different key: the signature cannot verify
        let bad = [
            "abc.def.ghi",
            try key.token(issuedAt: now, kid: "UNKNOWNKEY"),
            try key.token(issuedAt: now, iss: "OTHERTEAM1"),
            try key.token(issuedAt: now, alg: "HS256"),
            try other.token(issuedAt: now),
        ]
        for jwt in bad {
            let response = send(bearer: jwt, on: tokenConnection())
            #expect(response.status == 403)
            #expect(response.reason == "InvalidProviderToken", "token \(jwt)")
        }
    }

    @Test func derSignaturesAndPaddedBase64AreAccepted() throws {
        let der = try key.token(issuedAt: f.clock.now, der: true)
        #expect(send(bearer: der, on: tokenConnection()).status == 200)
        let padded = try key.token(issuedAt: f.clock.now, encoding: .paddedBase64)
        #expect(send(bearer: padded, on: tokenConnection()).status == 200)
        #expect(f.send(push(to: f.token, headers: [("authorization", "Bearer \(padded)")]), on: tokenConnection()).status == 200)
    }

    @Test func tokenOlderThanAnHourIsExpired() throws {
        let jwt = try key.token(issuedAt: f.clock.now)
        let connection = tokenConnection()
        f.clock.advance(3600)
        #expect(send(bearer: jwt, on: connection).status == 200)
        f.clock.advance(1)
        let response = send(bearer: jwt, on: connection)
        #expect(response.status == 403)
        #expect(response.reason == "ExpiredProviderToken")
    }

    @Test func newTokenWithinTwentyMinutesIsTooManyUpdates() throws {
        let connection = tokenConnection()
        #expect(send(bearer: try key.token(issuedAt: f.clock.now), on: connection).status == 200)
        f.clock.advance(19 * 60)
        let early = send(bearer: try key.token(issuedAt: f.clock.now), on: connection)
        #expect(early.status == 429)
        #expect(early.reason == "TooManyProviderTokenUpdates")
        // Another connection may use the new token at once.
        #expect(send(bearer: try key.token(issuedAt: f.clock.now), on: tokenConnection()).status == 200)
        f.clock.advance(60)
        #expect(send(bearer: try key.token(issuedAt: f.clock.now), on: connection).status == 200)
    }

    @Test func secondTeamOnOneConnectionIsRefused() throws {
        let otherTeam = try TestKey(keyID: "KEYTEAM2XX", teamID: "TEAM222222")
        try f.simulator.registerSigningKey(otherTeam.signingKey())
        let connection = tokenConnection()
        #expect(send(bearer: try key.token(issuedAt: f.clock.now), on: connection).status == 200)
        f.clock.advance(3000)
        #expect(send(bearer: try otherTeam.token(issuedAt: f.clock.now), on: connection).reason == "InvalidProviderToken")
        #expect(send(bearer: try otherTeam.token(issuedAt: f.clock.now), on: tokenConnection()).status == 200)
    }

    @Test func tokenAuthRequiresATopic() throws {
        let response = send(bearer: try key.token(issuedAt: f.clock.now), on: tokenConnection(), topic: nil)
        #expect(response.status == 400)
        #expect(response.reason == "MissingTopic")
    }

    @Test func keyLimitedToSomeAppsRefusesOtherTopics() throws {
        let limited = try TestKey(keyID: "LIMITEDKEY", teamID: "TEAM123456")
        try f.simulator.registerSigningKey(limited.signingKey(bundleIDs: ["com.example.elsewhere"]))
        let response = send(bearer: try limited.token(issuedAt: f.clock.now), on: tokenConnection())
        #expect(response.status == 400)
        #expect(response.reason == "TopicDisallowed")
    }

    @Test func keyOfTheOtherEnvironmentIsRefused() throws {
        let productionOnly = try TestKey(keyID: "PRODKEY123", teamID: "TEAM123456")
        try f.simulator.registerSigningKey(productionOnly.signingKey(environment: .production))
        let response = send(bearer: try productionOnly.token(issuedAt: f.clock.now), on: tokenConnection())
        #expect(response.status == 403)
        #expect(response.reason == "BadEnvironmentKeyIdInToken")
    }

    @Test func removedKeyNoLongerVerifies() throws {
        let jwt = try key.token(issuedAt: f.clock.now)
        let connection = tokenConnection()
        #expect(send(bearer: jwt, on: connection).status == 200)
        #expect(send(bearer: jwt, on: connection).status == 200)
        try f.simulator.removeSigningKey(keyID: key.keyID)
        #expect(send(bearer: jwt, on: tokenConnection()).reason == "InvalidProviderToken")
        // A connection that already authenticated with the token does not keep trusting it either.
        #expect(send(bearer: jwt, on: connection).reason == "InvalidProviderToken")
        #expect(throws: SimulatorError.unknownSigningKey(key.keyID)) { try f.simulator.removeSigningKey(keyID: key.keyID) }
    }

    @Test func locationPushesNeedTokenAuth() throws {
        let topic = Fixture.bundleID + ".location-query"
        let jwt = try key.token(issuedAt: f.clock.now)
        #expect(f.send(push(to: f.token, topic: topic, headers: [("authorization", "bearer \(jwt)"), ("apns-push-type", "location")]),
                       on: tokenConnection()).status == 200)
        let cert = f.certificateConnection(topics: [topic])
        #expect(f.send(push(to: f.token, topic: topic, headers: [("apns-push-type", "location")]), on: cert).reason == "InvalidPushType")
    }
}
