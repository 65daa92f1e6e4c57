import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import HeraldHTTP
@testable import HeraldServer

/// The service behind the real HTTP/1.1 server on a free port, called over a socket, with the background
/// delivery loop running. The push transport is still the in-memory stand-in (no APNs here).
@Suite struct LiveHTTPTests {
    struct Client {
        let base: String
        func call(_ method: String, _ path: String, key: String?, json: JSON? = nil) async throws -> (Int, JSON, String) {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = method
            if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
            if let json { request.httpBody = Data(json.bytes); request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
            let (data, response) = try await URLSession.shared.data(for: request)
            let text = String(decoding: data, as: UTF8.self)
            return ((response as! HTTPURLResponse).statusCode, (try? JSON(parsing: Array(data))) ?? .null, text)
        }
    }

    @Test func registerPushAndExportOverARealSocketWithBackgroundWorkers() async throws {
        let t = try await TestService(clock: ManualClock(Date())) { $0.runWorkers = true; $0.pollInterval = 0.05 }
        let server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), handler: t.service.handler)
        try await server.start()
        let client = Client(base: "http://127.0.0.1:\(server.port)")

        let (created, app, _) = try await client.call("POST", "/v1/apps", key: testAdminKey, json: ["name": "Live", "topic": "com.example.live"])
        #expect(created == 201)
        let appID = try #require(app["id"]?.stringValue)
        let master = try #require(app["keys"]?["master"]?.stringValue)
        let clientKey = try #require(app["keys"]?["client"]?.stringValue)
        #expect(try await client.call("PUT", "/v1/apps/\(appID)/credentials/production", key: master, json: p8Credential).0 == 200)
        for i in 0..<3 {
            let (status, _, _) = try await client.call("POST", "/v1/installations", key: clientKey,
                                                       json: ["installationId": .string("live-\(i)"), "deviceToken": .string(token(i + 1)), "tags": ["live"]])
            #expect(status == 201)
        }
        let (accepted, push, _) = try await client.call("POST", "/v1/pushes", key: master, json: ["target": ["tags": ["live"]], "content": ["alert": "hi"]])
        #expect(accepted == 202)
        let pushID = try #require(push["id"]?.stringValue)
        var state = ""
        for _ in 0..<100 {
            state = try await client.call("GET", "/v1/pushes/\(pushID)", key: master).1["status"]?.stringValue ?? ""
            if state == "done" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(state == "done")
        #expect(t.transport.notifications.count == 3)
        let (exported, _, body) = try await client.call("GET", "/v1/installations/export", key: master)
        #expect(exported == 200 && body.split(separator: "\n").count == 3)
        let (unauthorized, error, _) = try await client.call("GET", "/v1/installations", key: clientKey)
        #expect(unauthorized == 403 && error["error"]?["code"] == "forbidden")
        await t.service.shutdown()
        await server.stop()
    }

    /// A transport that holds every batch until released: a slow APNs.
    final class GateTransport: PushTransport {
        let entered = AsyncStream<Void>.makeStream()
        func deliver(_ batch: OutgoingBatch) async -> [DeliveryResult] {
            entered.continuation.yield()
            try? await Task.sleep(for: .seconds(30))
            return batch.notifications.map { DeliveryResult(id: $0.id, status: 200) }
        }
    }

    @Test func shutdownReturnsInFlightDeliveriesToTheQueue() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-shutdown-\(UUID().uuidString)")
        let gate = GateTransport()
        var config = HeraldConfiguration()
        config.databasePath = dir.appendingPathComponent("herald.sqlite").path
        config.adminKey = testAdminKey
        config.runWorkers = true
        config.pollInterval = 0.05
        config.shutdownGrace = 0.2
        config.apiRateLimit = 0
        let service = try await HeraldService(configuration: config, transport: gate)
        try await service.start()
        let t = TestService(wrapping: service, directory: dir)
        let app = try await t.createApp()
        try await t.register(app, "i", token: token(1))
        let pushID = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        var iterator = gate.entered.stream.makeAsyncIterator()
        _ = await iterator.next()            // the batch is with the (slow) transport
        await service.shutdown()
        // The delivery is pending again, not lost and not counted as sent.
        let restarted = try await TestService(directory: dir)
        try await restarted.deliver()
        #expect(restarted.transport.notifications.count == 1)
        let status = await restarted.status(app, pushID)
        #expect(status["status"] == "done" && status["counts"]?["sent"] == 1)
    }
}

extension TestService {
    /// Wraps a service built by the test itself (its own transport and configuration).
    init(wrapping service: HeraldService, directory: URL) {
        self.service = service
        self.transport = RecordingTransport()
        self.clock = ManualClock(start)
        self.directory = directory
    }
}
