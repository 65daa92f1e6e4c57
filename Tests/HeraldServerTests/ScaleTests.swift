import Foundation
import Testing
@testable import HeraldServer

/// Import and tag-push fan-out at scale. Runs with a small audience by default so the suite stays fast;
/// set HERALD_SCALE_COUNT (e.g. 1000000, in a release build) to benchmark. The transport is the in-memory
/// stand-in for the network.
@Suite struct ScaleTests {
    static let count = Int(ProcessInfo.processInfo.environment["HERALD_SCALE_COUNT"] ?? "") ?? 2_000

    @Test func importThenTagPushToTheWholeAudienceDeliversEachDeviceOnce() async throws {
        let n = Self.count
        let t = try await TestService { $0.fanOutBatchSize = 5_000; $0.dispatchBatchSize = 1_000 }
        let app = try await t.createApp()
        var body = [UInt8]()
        body.reserveCapacity(n * 120)
        for i in 0..<n {
            body += Array(#"{"installationId":"i-\#(i)","deviceToken":"\#(token(i + 1))","tags":["\#(i % 2 == 0 ? "even" : "odd")","all"],"locale":"\#(i % 3 == 0 ? "fr-FR" : "en-US")"}"#.utf8)
            body.append(0x0A)
        }
        let clock = ContinuousClock()
        let importStart = clock.now
        let imported = await t.call("POST", "/v1/installations/import", key: app.master, raw: body)
        let importTime = clock.now - importStart
        #expect(imported.body["created"]?.intValue == n)

        let pushStart = clock.now
        let id = try await t.push(app, ["target": ["tags": ["all"]], "content": ["alert": "hello", "localized": ["fr": "bonjour"], "badge": ["increment": 1]]])
        try await t.deliver()
        let pushTime = clock.now - pushStart
        let status = await t.status(app, id)
        #expect(status["counts"]?["sent"]?.intValue == n)
        #expect(Set(t.transport.notifications.map(\.deviceToken)).count == n)
        // Payloads were encoded per variant (2 locales × 1 badge value), not per device.
        let distinctBuffers = Set(t.transport.notifications.map { $0.payload.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) } })
        #expect(distinctBuffers.count <= 2)
        print("scale: \(n) installations imported in \(importTime), tag push fanned out and delivered in \(pushTime)")
    }
}
