import Foundation
import Testing
import HeraldHTTP
import HeraldTestSupport
import HeraldServer
@testable import HeraldCLI

/// `herald webhooks` against a running provider (in this process, on a real port), with a receiver.
@Suite struct WebhooksCommandsTests {
    @Test func createPingListAndDeleteFromTheCommandLine() async throws {
        let server = try await ServerCommandsTests().start()
        defer { Task { await server.stop() } }
        let receiver = try WebhookCrashTests.Receiver(port: FreePort.next())
        try await receiver.server.start()
        defer { Task { await receiver.server.stop() } }
        let url = "http://127.0.0.1:\(server.port)"
        let master = try #require(server.bootstrap.masterKey), appID = try #require(server.bootstrap.appID)
        let access = ["--server", url, "--api-key", master, "--app", appID]

        #expect(await HeraldCommand.run(["webhooks", "create", "--url", "http://127.0.0.1:\(receiver.server.port)/events",
                                         "--events", "push.done", "--events", "app.paused"] + access) == 0)
        #expect(await HeraldCommand.run(["webhooks", "create", "--url", "http://example.com/insecure"] + access) == 1, "http only for localhost")
        #expect(await HeraldCommand.run(["webhooks", "update"] + access) == 64, "nothing to change is a usage error")
        let api = try JSONAPIClient(baseURL: url, authorization: master)
        let listed = try await api.call("GET", "/v1/apps/\(appID)/webhooks") as? [String: Any]
        let hook = try #require((listed?["webhooks"] as? [[String: Any]])?.first)
        let id = try #require(hook["id"] as? String)
        #expect(hook["events"] as? [String] == ["push.done", "app.paused"])
        #expect(await HeraldCommand.run(["webhooks", "list"] + access) == 0)
        #expect(await HeraldCommand.run(["webhooks", "ping", "--webhook", id] + access) == 0)
        var pinged = false
        for _ in 0..<200 where !pinged {
            pinged = receiver.received.contains { $0["type"] as? String == "ping" }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(pinged)
        #expect(await HeraldCommand.run(["webhooks", "deliveries", "--webhook", id] + access) == 0)
        #expect(await HeraldCommand.run(["webhooks", "update", "--webhook", id, "--disable"] + access) == 0)
        #expect(await HeraldCommand.run(["webhooks", "rotate-secret", "--webhook", id] + access) == 0)
        #expect(await HeraldCommand.run(["webhooks", "delete", "--webhook", id] + access) == 0)
        #expect(await HeraldCommand.run(["webhooks", "delete", "--webhook", id] + access) == 1)
    }
}
