import Foundation
import Testing
@testable import HeraldClient

@Suite struct RetryTests {
    @Test func serverErrorsAreRetriedWithGrowingDelays() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        server.enqueue(.json(500, #"{"error":{"code":"internal","message":"db down"}}"#), .json(503, "{}"), .respond(status: 502))
        let sleeper = SleepRecorder()
        let client = try makeClient(server: server, sleeper: sleeper)

        try await client.register(deviceToken: tokenData)

        #expect(server.requests.count == 4)
        #expect(sleeper.delays == [1, 2, 4])
        #expect(api.installation(client.installationId) != nil)
        #expect(await client.hasPendingChanges == false)
    }

    @Test func retryAfterOnA429IsHonoured() async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        server.enqueue(.json(429, #"{"error":{"code":"rate_limited","message":"slow down"}}"#, headers: ["Retry-After": "7"]))
        let sleeper = SleepRecorder()
        let client = try makeClient(server: server, sleeper: sleeper)

        try await client.register(deviceToken: tokenData)

        #expect(sleeper.delays == [7])
        #expect(server.requests.count == 2)
    }

    @Test func retryAfterAsAnHTTPDateIsCountedFromNow() async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        let clock = TestClock()
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        server.enqueue(.json(429, "{}", headers: ["Retry-After": formatter.string(from: clock.now + 30)]))
        let sleeper = SleepRecorder()
        let client = try makeClient(server: server, sleeper: sleeper, clock: clock)

        try await client.register(deviceToken: tokenData)

        #expect(sleeper.delays == [30])
    }

    @Test func aRetryAfterLongerThanThePolicyAllowsStopsWithRateLimited() async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        server.enqueue(.json(429, "{}", headers: ["Retry-After": "3600"]))
        let sleeper = SleepRecorder()
        let client = try makeClient(server: server, sleeper: sleeper)

        await #expect(throws: HeraldClientError.rateLimited(retryAfter: 3600)) {
            try await client.register(deviceToken: tokenData)
        }
        #expect(sleeper.delays.isEmpty)
        #expect(await client.hasPendingChanges)
    }

    @Test func aRefusedConnectionIsRetriedUntilTheServerListens() async throws {
        let api = FakeHeraldAPI()
        let server = try TestHTTPServer(listening: false, fallback: { api.handle($0) })
        defer { server.stop() }
        // The server starts listening while the client waits before its third attempt.
        let sleeper = SleepRecorder(hook: { count in if count == 2 { server.startListening() } })
        let client = try makeClient(server: server, sleeper: sleeper)

        try await client.register(deviceToken: tokenData)

        #expect(sleeper.delays == [1, 2])
        #expect(server.requests.count == 1)
        #expect(api.installation(client.installationId) != nil)
    }

    @Test func aConnectionDroppedWithoutAnswerIsRetried() async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        server.enqueue(.hangUp)
        let sleeper = SleepRecorder()
        let client = try makeClient(server: server, sleeper: sleeper)

        try await client.register(deviceToken: tokenData)

        #expect(sleeper.delays == [1])
        #expect(server.requests.count == 2)
    }

    @Test func afterTheLastAttemptTheChangeWaitsForTheNextSync() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        server.enqueue(.respond(status: 500), .respond(status: 500), .respond(status: 500), .respond(status: 500))
        let sleeper = SleepRecorder()
        let client = try makeClient(server: server, sleeper: sleeper)

        await #expect {
            try await client.register(deviceToken: tokenData)
        } throws: { error in
            guard case HeraldClientError.unavailable(4, 500, _) = error else { return false }
            return true
        }
        #expect(sleeper.delays == [1, 2, 4])
        #expect(await client.hasPendingChanges)

        try await client.sync()

        #expect(server.requests.count == 5)
        #expect(api.installation(client.installationId)?["deviceToken"] as? String == DeviceToken(tokenData).hex)
        #expect(await client.hasPendingChanges == false)
    }

    @Test func aPendingChangeSurvivesARelaunch() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        let storage = InMemoryStorage()
        server.enqueue(.respond(status: 503))
        let offline = try makeClient(server: server, storage: storage, retry: .never)
        try await offline.setAlias("kept")
        await #expect(throws: HeraldClientError.self) { try await offline.register(deviceToken: tokenData) }

        let relaunched = try makeClient(server: server, storage: storage)
        try await relaunched.sync()

        #expect(api.installation(relaunched.installationId)?["alias"] as? String == "kept")
    }

    @Test func changesMadeWhileTheServerIsFailingDoNotStartAnotherRoundOfRetries() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server, retry: RetryPolicy(maxAttempts: 2))
        try await client.register(deviceToken: tokenData)
        server.enqueue(.respond(status: 503), .respond(status: 503, delay: 0.3))

        let first = Task { try await client.setAlias("a") }
        try await Task.sleep(nanoseconds: 100_000_000)
        let second = Task { try await client.setUserId("u") }
        await #expect(throws: HeraldClientError.self) { try await first.value }
        await #expect(throws: HeraldClientError.self) { try await second.value }

        #expect(server.requests.count == 3)
        try await client.sync()
        #expect(api.installation(client.installationId)?["alias"] as? String == "a")
        #expect(api.installation(client.installationId)?["userId"] as? String == "u")
    }

    @Test func clientErrorsAreNotRetried() async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        server.enqueue(.json(422, #"{"error":{"code":"invalid_locale","message":"unknown locale","field":"locale"}}"#))
        let sleeper = SleepRecorder()
        let client = try makeClient(server: server, sleeper: sleeper)

        await #expect(throws: HeraldClientError.rejected(status: 422, code: "invalid_locale", message: "unknown locale", field: "locale")) {
            try await client.register(deviceToken: tokenData)
        }
        #expect(sleeper.delays.isEmpty)
        #expect(server.requests.count == 1)
    }

    @Test func jitterOnlyShortensDelaysAndByNoMoreThanItsFraction() {
        let policy = RetryPolicy(maxAttempts: 5, initialDelay: 10, maxDelay: 100, jitter: 0.2)
        #expect(policy.jitteredDelay(afterAttempt: 1, random: { 0 }) == 10)
        #expect(policy.jitteredDelay(afterAttempt: 1, random: { 1 }) == 8)
        #expect(policy.jitteredDelay(afterAttempt: 2, random: { 0.5 }) == 18)
        let drawn = (0..<200).map { _ in RetryPolicy.default.jitteredDelay(afterAttempt: 3) }
        #expect(drawn.allSatisfy { $0 > 3.2 - 1e-9 && $0 <= 4 })
        #expect(Set(drawn).count > 1)
    }

    @Test func backoffIsCappedByTheMaximumDelay() {
        let policy = RetryPolicy(maxAttempts: 10, initialDelay: 1, maxDelay: 10, multiplier: 3)
        #expect((1...5).map(policy.delay(afterAttempt:)) == [1, 3, 9, 10, 10])
    }
}
