import Foundation
import Testing
import HeraldHTTP
@testable import HeraldSimulator

/// Counting mode with a share of tokens answering 410 (`acceptAllUnregisteredRate`), for benchmarks of
/// token retirement: the same tokens every time, about the share asked for, with APNs' 410 body.
@Suite struct UnregisteredRateTests {
    @Test func aStableShareOfTokensAnswers410WithATimestamp() throws {
        let f = try Fixture { $0.mode = .acceptAll; $0.acceptAllUnregisteredRate = 0.1 }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var unregistered: [String] = []
        for i in 0..<5000 {
            let token = String(format: "%064x", 0x1000000 + i)
            let r = f.simulator.provider.acceptAll(push(to: token), environment: .sandbox, now: now)
            if r.status == 410 {
                unregistered.append(token)
                let body = try #require(try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])
                #expect(body["reason"] as? String == "Unregistered")
                #expect((body["timestamp"] as? NSNumber)?.int64Value == 1_800_000_000_000)
            } else {
                #expect(r.status == 200)
            }
        }
        #expect((400...600).contains(unregistered.count), "about 10% of 5000: \(unregistered.count)")
        // The same tokens again.
        let again = unregistered.prefix(50).map { f.simulator.provider.acceptAll(push(to: $0), environment: .sandbox, now: now).status }
        #expect(again.allSatisfy { $0 == 410 })
    }
}
