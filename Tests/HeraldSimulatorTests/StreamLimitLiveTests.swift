import APNSClient
import APNSCore
import Foundation
import HeraldCrypto
import Testing
@testable import HeraldSimulator

/// SETTINGS_MAX_CONCURRENT_STREAMS as a provider meets it on real sockets. With every request left
/// unanswered (`neverAnswerRate` 1), the number that reach the simulator is the connection's stream limit.
extension LiveTests {
    /// How many requests the simulator has taken and left unanswered, once that stops growing.
    func unansweredOnceSettled(_ live: Running, atLeast: Int) async throws -> Int {
        let count = { live.simulator.statistics.faults["neverAnswer"] ?? 0 }
        for _ in 0..<300 where count() < atLeast { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(300))
        return count()
    }

    func neverAnswer(_ live: Running, override: UInt32? = nil) throws {
        var faults = FaultConfiguration()
        faults.neverAnswerRate = 1
        faults.maxConcurrentStreamsOverride = override
        try live.simulator.setFaults(faults)
    }

    @Test func aTokenConnectionHasOneStreamUntilAValidTokenThenTheConfiguredLimit() async throws {
        let live = try await Self.start { $0.maxConcurrentStreams = 3 }
        let key = try TestKey()
        try live.simulator.registerSigningKey(key.signingKey())
        let credentials = APNSCredentials.token(APNSSigningKey(key: key.privateKey, keyID: key.keyID, teamID: key.teamID))
        let batch = try (0..<5).map { try notification(live.token, body: "n\($0)") }

        // Nothing has been answered, so no valid token has been seen: one request at a time.
        try neverAnswer(live)
        let fresh = try live.client(credentials)
        let waiting = Task { await fresh.send(batch: batch) { _ in } }
        #expect(try await unansweredOnceSettled(live, atLeast: 1) == 1)
        fresh.shutdown()
        await waiting.value

        // After one request with a valid token: the configured 3.
        try live.simulator.setFaults(FaultConfiguration())
        let client = try live.client(credentials)
        _ = try await client.send(notification(live.token, body: "first"))
        live.simulator.reset()
        try neverAnswer(live)
        let more = Task { await client.send(batch: batch) { _ in } }
        #expect(try await unansweredOnceSettled(live, atLeast: 3) == 3)
        client.shutdown()
        await more.value
        await live.stop()
    }

    @Test func theStreamLimitOverrideFaultReachesNewConnections() async throws {
        let live = try await Self.start()
        try neverAnswer(live, override: 2)
        let cert = try live.simulator.issueClientCertificate(bundleID: "com.example.app", environments: [.sandbox])
        let client = try live.client(.certificate(cert))
        let batch = try (0..<6).map { try notification(live.token, body: "n\($0)") }
        let waiting = Task { await client.send(batch: batch) { _ in } }
        #expect(try await unansweredOnceSettled(live, atLeast: 2) == 2)
        client.shutdown()
        await waiting.value
        await live.stop()
    }
}
