import Foundation
import Testing
import Synchronization
import HeraldCrypto
@testable import APNSClient

@Suite struct ProviderTokenSourceTests {
    let key = try! APNSSigningKey(key: PrivateKey.generateP256(), keyID: "KEY1234567", teamID: "TEAM123456")

    @Test func tokenIsReusedUntilFiftyMinutesThenRenewed() throws {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let source = ProviderTokenSource(signingKey: key, now: { now.withLock { $0 } })
        let first = try source.token()
        now.withLock { $0 += 49 * 60 }
        #expect(try source.token() == first)
        now.withLock { $0 += 2 * 60 }
        let second = try source.token()
        #expect(second != first)
        let jwt = try JWT(parsing: second)
        let expected: Int64 = 1_800_000_000 + 51 * 60
        #expect(jwt.claims.iat == expected)
        #expect(jwt.claims.iss == "TEAM123456")
        try jwt.verify(using: key.key.publicKey)
    }

    @Test func expiredRejectionRenewsOnlyTheTokenThatFailed() throws {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let source = ProviderTokenSource(signingKey: key, now: { now.withLock { $0 } })
        let first = try source.token()
        now.withLock { $0 += 5 }
        try source.tokenWasRejectedAsExpired(first)
        let second = try source.token()
        #expect(second != first)
        // A second failure report for the old token (another request in flight) does not renew again.
        now.withLock { $0 += 5 }
        try source.tokenWasRejectedAsExpired(first)
        #expect(try source.token() == second)
    }

    @Test func retryDelaysGrowExponentiallyWithinTheCap() {
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        #expect(policy.delay(afterAttempt: 1, random: { $0.upperBound }) == .milliseconds(100))
        #expect(policy.delay(afterAttempt: 3, random: { $0.upperBound }) == .milliseconds(400))
        #expect(policy.delay(afterAttempt: 10, random: { $0.upperBound }) == .seconds(1))
        #expect(policy.delay(afterAttempt: 3, random: { $0.lowerBound }) == .zero)
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(5)) == .seconds(1))
    }
}
