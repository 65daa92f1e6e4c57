import Foundation
import Testing
import HeraldHTTP
@testable import HeraldServer

/// Several `herald serve` nodes on one PostgreSQL database: each batch is claimed under a lease by one node
/// (`FOR UPDATE SKIP LOCKED`), so two nodes sending at once never send the same batch.
@Suite struct WebhookNodesTests {
    @Test(.enabled(if: postgresTestURL != nil, "HERALD_TEST_POSTGRES_URL is not set"))
    func twoNodesSendingAtOnceSendEachBatchOnceAndInOrder() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-wh-nodes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try await TestService(directory: dir, store: .postgres)
        let b = try await TestService(directory: dir, store: .postgres)
        let receiver = try await WebhookReceiver()
        defer { Task { await receiver.stop() } }
        let app = try await a.createApp()
        var hooks: [String] = []
        for _ in 0..<6 {
            let r = await a.call("POST", "/v1/apps/\(app.id)/webhooks", key: app.master, json: ["url": .string(receiver.url), "events": ["push.cancelled"]])
            hooks.append(try #require(r.body["id"]?.stringValue))
        }
        // Scheduled pushes, cancelled: one event each, for every webhook.
        var cancelled: [String] = []
        for i in 0..<230 {
            let id = try await a.push(app, ["target": ["all": true], "content": ["alert": .string("later \(i)")],
                                            "options": ["sendAt": "2027-01-16T08:00:00Z"]])
            #expect(await (i % 2 == 0 ? a : b).call("POST", "/v1/pushes/\(id)/cancel", key: app.master).status == 200)
            cancelled.append(id)
        }
        async let fromA = a.service.webhookWorker.runUntilIdle()
        async let fromB = b.service.webhookWorker.runUntilIdle()
        _ = try await (fromA, fromB)
        // Either node may finish the rest; both stop when nothing is left.
        try await a.service.webhookWorker.runUntilIdle()

        let requests = receiver.received
        #expect(requests.allSatisfy { $0.status == 200 })
        #expect(Set(requests.map(\.deliveryID)).count == requests.count, "no batch sent twice")
        #expect(requests.count == 6 * 3, "230 events per webhook: batches of 100, 100 and 30")
        for hook in hooks {
            let events = requests.filter { $0.headers["herald-webhook-id"] == hook }.flatMap(\.events)
            #expect(events.compactMap { $0["data"]?["pushId"]?.stringValue } == cancelled, "every event, in order, for \(hook)")
        }
    }
}
