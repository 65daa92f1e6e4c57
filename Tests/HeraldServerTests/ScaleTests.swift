import Foundation
import Synchronization
import Testing
@testable import HeraldServer

/// Import and tag-push fan-out at scale. Runs with a small audience by default so the suite stays fast;
/// set HERALD_SCALE_COUNT (e.g. 1000000, in a release build) to benchmark. The transport is an in-memory
/// stand-in for the network that only counts, so the process's memory is the service's own.
@Suite struct ScaleTests {
    static let count = Int(ProcessInfo.processInfo.environment["HERALD_SCALE_COUNT"] ?? "") ?? 2_000

    /// Counts deliveries and distinct payload buffers without keeping notifications.
    final class CountingTransport: PushTransport {
        struct Tally { var delivered = 0; var tokenChecksum = 0; var buffers = Set<Int>(); var largestBatch = 0 }
        let tally = Mutex(Tally())
        func deliver(_ batch: OutgoingBatch) async -> [DeliveryResult] {
            tally.withLock { t in
                t.delivered += batch.notifications.count
                t.largestBatch = max(t.largestBatch, batch.notifications.count)
                for n in batch.notifications {
                    t.tokenChecksum &+= Int(n.deviceToken.suffix(8), radix: 16) ?? 0
                    t.buffers.insert(n.payload.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) })
                }
            }
            return batch.notifications.map { DeliveryResult(id: $0.id, status: 200) }
        }
    }

    static func residentMegabytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = Double(text.split(separator: " ")[1]) else { return 0 }
        return pages * 4096 / 1_048_576
    }

    @Test func importThenTagPushToTheWholeAudienceDeliversEachDeviceOnce() async throws {
        let n = Self.count
        let transport = CountingTransport()
        let t = try await TestService(transport: RecordingTransport()) { $0.fanOutBatchSize = 5_000; $0.dispatchBatchSize = 1_000 }
        let service = try await HeraldService(configuration: t.service.configuration, transport: transport, clock: t.clock)
        try await service.start()
        let live = TestService(wrapping: service, directory: t.directory)
        let app = try await live.createApp()
        let clock = ContinuousClock()
        var body = [UInt8]()
        body.reserveCapacity(n * 120)
        for i in 0..<n {
            body += Array(#"{"installationId":"i-\#(i)","deviceToken":"\#(token(i + 1))","tags":["\#(i % 2 == 0 ? "even" : "odd")","all"],"locale":"\#(i % 3 == 0 ? "fr-FR" : "en-US")"}"#.utf8)
            body.append(0x0A)
        }
        let importStart = clock.now
        let imported = await live.call("POST", "/v1/installations/import", key: app.master, raw: body)
        let importTime = clock.now - importStart
        body = []
        #expect(imported.body["created"]?.intValue == n)

        let rssBefore = Self.residentMegabytes()
        let pushStart = clock.now
        let id = try await live.push(app, ["target": ["tags": ["all"]], "content": ["alert": "hello", "localized": ["fr": "bonjour"], "badge": ["increment": 1]]])
        try await service.engine.runUntilIdle()
        let pushTime = clock.now - pushStart
        let rssAfter = Self.residentMegabytes()
        let status = await live.status(app, id)
        #expect(status["counts"]?["sent"]?.intValue == n)
        let tally = transport.tally.withLock { $0 }
        #expect(tally.delivered == n)
        #expect(tally.tokenChecksum == (1...n).reduce(0, &+))   // every device exactly once
        // Payloads were encoded per variant (2 locales × 1 badge value), not per device.
        #expect(tally.buffers.count <= 2)
        print("scale: \(n) installations imported in \(importTime); tag push to all delivered in \(pushTime); RSS \(Int(rssBefore)) MB → \(Int(rssAfter)) MB")
    }
}
