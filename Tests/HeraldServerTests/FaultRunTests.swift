import Foundation
import Testing
import HeraldHTTP
import HeraldSimulator
@testable import HeraldServer
import HeraldProvider

/// The pipeline against an APNs that misbehaves: the simulator answers 503 and 429, resets connections,
/// sends GOAWAY and lowers its stream limit, and every delivery still ends done, once.
@Suite struct FaultRunTests {
    @Test func everyDeliveryEndsDoneDespite503s429sGoAwaysAndResets() async throws {
        var settings = ProviderServer.Settings()
        settings.port = 0
        settings.simulatorInspectionPort = nil
        settings.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-faults-\(UUID().uuidString)").path
        settings.service.databasePath = settings.dataDirectory + "/herald.sqlite"
        settings.service.pollInterval = 0.05
        settings.service.retryBase = 0.02
        settings.service.retryCap = 0.2
        settings.service.maxAttempts = 30
        let server = try await ProviderServer.start(settings, log: { _, _ in })
        defer { Task { await server.stop() } }
        let sim = try #require(server.simulator)
        let clientKey = try #require(server.bootstrap.clientKey), masterKey = try #require(server.bootstrap.masterKey)
        let api = EndToEndTests.API(client: HTTP1Client(host: "127.0.0.1", port: server.port))

        let count = 300
        var lines: [String] = []
        for i in 0..<count {
            let device = sim.createDevice(name: "d\(i)")
            let token = try sim.install(bundleID: "com.example.herald", environment: .sandbox, on: device.id).token
            lines.append(#"{"deviceToken":"\#(token)","environment":"sandbox","tags":["faults"]}"#)
        }
        _ = clientKey
        let imported = try await api.client.send(HTTPRequest(method: "POST", target: "/v1/installations/import?format=jsonl",
                                                             headers: ["authorization": "Bearer \(masterKey)"], body: Array(lines.joined(separator: "\n").utf8)))
        #expect(imported.status == 200)

        var faults = FaultConfiguration()
        faults.seed = 7
        faults.serviceUnavailableRate = 0.1
        faults.tooManyRequestsRate = 0.1
        faults.connectionResetRate = 0.02
        faults.goAwayAfterStreams = 40
        faults.maxConcurrentStreamsOverride = 8
        try sim.setFaults(faults)

        let (accepted, push) = try await api.call("POST", "/v1/pushes", key: masterKey, ["target": ["tags": ["faults"]], "content": ["alert": "through the storm"]])
        #expect(accepted == 202)
        let pushID = try #require(push["id"] as? String)
        var status: [String: Any] = [:]
        for _ in 0..<600 {
            status = try await api.call("GET", "/v1/pushes/\(pushID)", key: masterKey).1
            if status["status"] as? String == "done" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(status["status"] as? String == "done")
        let counts = try #require(status["counts"] as? [String: Any])
        #expect(counts["sent"] as? Int == count)
        #expect(counts["failed"] as? Int == 0)

        let stats = sim.statistics
        #expect(stats.rejected["ServiceUnavailable", default: 0] > 0 && stats.rejected["TooManyRequests", default: 0] > 0, "the faults happened")
        let delivered = Set(sim.devices.flatMap { sim.device($0.id)?.inbox.map(\.apnsID) ?? [] })
        #expect(delivered.count == count, "every device received it")
        // A reset can lose an answer after delivery: the re-send carries the same apns-id, so it is recognisable.
        #expect(stats.duplicates.keys.allSatisfy(delivered.contains))

        // The metrics tell the same story: APNs answers by reason, a latency histogram, connections.
        let metrics = await server.service.handler(HTTPRequest(method: "GET", target: "/metrics"))
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains(#"herald_apns_responses_total{status="503",reason="ServiceUnavailable"}"#))
        #expect(text.contains(#"herald_apns_latency_seconds_bucket{le="+Inf"}"#))
        #expect(text.contains(#"herald_apns_connections_total{event="opened"}"#))
        // The in-flight window is each app's and environment's: its client's probe sized it.
        let appID = try #require(server.bootstrap.appID)
        #expect(text.contains(#"herald_apns_in_flight_window{app="\#(appID)",environment="sandbox"}"#))
    }
}
