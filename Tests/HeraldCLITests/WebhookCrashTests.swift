import Foundation
import Synchronization
import Testing
import HeraldHTTP
import HeraldTestSupport

/// A real `herald serve` killed with SIGKILL while its webhook receiver is down and events wait in the
/// outbox; started again, it delivers every one of them once the receiver is back.
@Suite(.serialized) struct WebhookCrashTests {
    typealias Crash = CrashRecoveryTests

    /// The backend: records the events of every POST and answers 200.
    final class Receiver: Sendable {
        final class Bodies: Sendable { let list = Mutex<[[UInt8]]>([]) }
        let bodies = Bodies()
        let server: HTTPServer
        init(port: Int) throws {
            let bodies = self.bodies
            server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: port)) { request in
                bodies.list.withLock { $0.append(request.body) }
                return HTTPResponse(status: 200)
            }
        }
        /// Every event received, in arrival order.
        var received: [[String: Any]] {
            bodies.list.withLock { $0 }.flatMap { body in
                ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])?["events"] as? [[String: Any]] ?? []
            }
        }
    }

    @Test func eventsPendingWhenTheServerIsKilledAreDeliveredAfterTheRestart() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Crash.binary), "build first: swift build (make test does)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-webhook-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (httpPort, inspectPort, hookPort) = (FreePort.next(), FreePort.next(), FreePort.next())
        let adminKey = "hk_admin_webhook_crash_0123456789"
        let serveArgs = ["serve", "--http-port", "\(httpPort)", "--data-dir", dir.appendingPathComponent("serve").path,
                         "--simulator-inspection-port", "\(inspectPort)", "--admin-key", adminKey, "--log-format", "json",
                         "--webhooks-poll-interval", "0.05", "--webhooks-retry-base", "0.2", "--webhooks-retry-cap", "0.5"]
        var serve = try Crash.Child(serveArgs)
        let admin = Crash.API(client: HTTP1Client(host: "127.0.0.1", port: httpPort), key: adminKey)
        #expect(try await Crash.waitUntil(seconds: 60) { try await admin.call("GET", "/healthz").0 == 200 })
        let app = try #require(try await admin.call("POST", "/v1/apps", ["name": "Crash hooks", "topic": "com.example.crash"]).1 as? [String: Any])
        let appID = try #require(app["id"] as? String)
        let master = Crash.API(client: admin.client, key: try #require((app["keys"] as? [String: Any])?["master"] as? String))
        // The receiver's port is reserved but nothing listens yet: every POST is refused and retried.
        let hook = try #require(try await master.call("POST", "/v1/apps/\(appID)/webhooks",
                                                      ["url": "http://127.0.0.1:\(hookPort)/events", "events": ["push.cancelled"]]).1 as? [String: Any])
        let hookID = try #require(hook["id"] as? String)

        // Scheduled pushes, cancelled: each cancellation is an event, written with it.
        var cancelled: [String] = []
        let later = Date().addingTimeInterval(30 * 86_400).formatted(.iso8601)
        for i in 0..<30 {
            let push = try #require(try await master.call("POST", "/v1/pushes", ["target": ["all": true], "content": ["alert": "later \(i)"],
                                                                                  "options": ["sendAt": later]]).1 as? [String: Any])
            let id = try #require(push["id"] as? String)
            #expect(try await master.call("POST", "/v1/pushes/\(id)/cancel").0 == 200)
            cancelled.append(id)
        }
        // Tried and failing (so the kill lands while deliveries wait for their next try).
        #expect(try await Crash.waitUntil(seconds: 60) {
            let list = try await master.call("GET", "/v1/apps/\(appID)/webhooks/\(hookID)/deliveries").1 as? [String: Any]
            let attempts = ((list?["deliveries"] as? [[String: Any]])?.first?["attempts"] as? [Any])?.count ?? 0
            return attempts >= 2
        })
        await serve.kill9()

        let receiver = try Receiver(port: hookPort)
        try await receiver.server.start()
        defer { Task { await receiver.server.stop() } }
        serve = try Crash.Child(serveArgs)
        defer { serve.stop() }
        #expect(try await Crash.waitUntil(seconds: 90) { Set(receiver.received.compactMap { ($0["data"] as? [String: Any])?["pushId"] as? String }).count == 30 })
        let events = receiver.received
        #expect(Set(events.compactMap { ($0["data"] as? [String: Any])?["pushId"] as? String }) == Set(cancelled), "nothing lost")
        // At least once: a repeat can only be the same event (same id) again.
        #expect(Set(events.compactMap { $0["id"] as? String }).count == 30)
        #expect(events.allSatisfy { $0["type"] as? String == "push.cancelled" })
        let pushOrder = events.compactMap { ($0["data"] as? [String: Any])?["pushId"] as? String }
        #expect(pushOrder == cancelled, "in the order they happened")
    }
}
