import Foundation
import Synchronization
import Testing
import HeraldCrypto
import HeraldHTTP
import HeraldIO
@testable import HeraldServer
import HeraldTestSupport

/// Webhooks end to end in one process: the service (REST, store, engine, webhook worker driven by hand on a
/// manual clock) sends its events to a receiver on a real socket, http or https.
@Suite struct WebhookDeliveryTests {
    /// A service whose webhooks retry quickly; the app has three devices, the second answers 410.
    func setUp(log: @escaping LogHandler = { _, _ in }, configure: (inout HeraldConfiguration) -> Void = { _ in }) async throws -> (TestService, TestService.App) {
        let t = try await TestService(configure: { config in
            config.webhooks.retryBase = 10
            config.webhooks.retryCap = 60
            configure(&config)
        }, log: log)
        let app = try await t.createApp()
        for i in 1...3 { try await t.register(app, "phone-\(i)", token: token(i)) }
        t.transport.answer { n in
            n.deviceToken == token(2) ? DeliveryResult(id: n.id, status: 410, reason: "Unregistered", unregisteredAt: start.addingTimeInterval(1))
                                      : DeliveryResult(id: n.id, status: 200)
        }
        return (t, app)
    }

    func createWebhook(_ t: TestService, _ app: TestService.App, url: String, events: [String]? = nil) async throws -> (id: String, secret: String) {
        var body: [String: JSON] = ["url": .string(url), "description": "backend"]
        if let events { body["events"] = .array(events.map(JSON.string)) }
        let r = await t.call("POST", "/v1/apps/\(app.id)/webhooks", key: app.master, json: .object(body))
        guard r.status == 201, let id = r.body["id"]?.stringValue, let secret = r.body["secret"]?.stringValue else {
            throw TestFailure("create webhook: \(r.status) \(r.text)")
        }
        return (id, secret)
    }

    /// Sends a push to every device and lets the engine finish it.
    func pushAndFinish(_ t: TestService, _ app: TestService.App) async throws -> String {
        let id = try await t.push(app, ["target": ["all": true], "content": ["alert": "hi"]])
        try await t.deliver()
        return id
    }

    /// A receiver behind https with a certificate from a new CA, whose certificate is in `caFile` (in `dir`,
    /// which the caller removes).
    func httpsReceiver() async throws -> (receiver: WebhookReceiver, caFile: String, dir: URL) {
        let ca = try CertificateAuthority.makeSelfSigned(commonName: "Webhook Test CA", now: Date())
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-webhook-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let caFile = dir.appendingPathComponent("ca.pem").path
        try ca.certificate.pem.write(toFile: caFile, atomically: true, encoding: .utf8)
        let receiver = try await WebhookReceiver(tls: TLSServerConfiguration(identity: try ca.issueServerCertificate(now: Date()), alpn: ["http/1.1"]))
        return (receiver, caFile, dir)
    }

    @Test func signedBatchesReachAnHTTPSReceiverTrustedThroughAConfiguredCA() async throws {
        let (receiver, caFile, dir) = try await httpsReceiver()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (t, app) = try await setUp(configure: { $0.webhooks.caFile = caFile })
        let hook = try await createWebhook(t, app, url: receiver.url, events: ["installation.retired", "delivery.failed", "push.done"])

        let pushID = try await pushAndFinish(t, app)
        try await t.service.webhookWorker.runUntilIdle()
        await receiver.stop()

        #expect(receiver.received.count == 1, "one POST carries the batch")
        let request = try #require(receiver.received.first)
        #expect(request.target == "/hooks/herald?source=test")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["herald-webhook-id"] == hook.id)
        #expect(request.deliveryID.hasPrefix("whd_"))
        #expect(WebhookReceiver.signatureVerifies(request, secret: hook.secret))
        #expect(!WebhookReceiver.signatureVerifies(request, secret: hook.secret + "x"))
        let types = request.events.compactMap { $0["type"]?.stringValue }
        #expect(types == ["delivery.failed", "installation.retired", "push.done"])
        let retired = try #require(request.events.first { $0["type"] == "installation.retired" })
        #expect(retired["appId"]?.stringValue == app.id)
        #expect(retired["data"]?["deviceToken"]?.stringValue == token(2))
        #expect(retired["data"]?["reason"] == "Unregistered" && retired["data"]?["pushId"]?.stringValue == pushID)
        #expect(retired["id"]?.stringValue?.hasPrefix("evt_") == true && retired["createdAt"]?.stringValue != nil)
        let done = try #require(request.events.last)
        #expect(done["data"]?["counts"]?["sent"] == 2 && done["data"]?["failures"]?["Unregistered"] == 1)

        // The signature format verifies with the Python snippet of docs/webhooks.md too.
        let bodyFile = dir.appendingPathComponent("body.json")
        try Data(request.body).write(to: bodyFile)
        let verified = try await ChildProcess.run("/usr/bin/env", ["python3", "-c", """
            import hmac, hashlib, sys
            secret, header, body = sys.argv[1], sys.argv[2], open(sys.argv[3], 'rb').read()
            parts = dict(p.split('=', 1) for p in header.split(','))
            expected = hmac.new(secret.encode(), parts['t'].encode() + b'.' + body, hashlib.sha256).hexdigest()
            sys.exit(0 if hmac.compare_digest(expected, parts['v1']) else 1)
            """, hook.secret, request.headers["herald-signature"] ?? "", bodyFile.path])
        #expect(verified.status == 0, "\(String(decoding: verified.error, as: UTF8.self))")
    }

    @Test func batchesToOneHTTPSReceiverShareOneConnectionAndOneHandshake() async throws {
        let (receiver, caFile, dir) = try await httpsReceiver()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Kept far longer than the default 4 s, which a loaded machine can spend between two pushes of a test.
        let (t, app) = try await setUp(configure: { $0.webhooks.caFile = caFile; $0.webhooks.keepAlive = 600 })
        _ = try await createWebhook(t, app, url: receiver.url, events: ["push.done"])

        for _ in 0..<3 {
            _ = try await pushAndFinish(t, app)
            try await t.service.webhookWorker.runUntilIdle()
        }
        await receiver.stop()

        #expect(receiver.received.map(\.status) == [200, 200, 200])
        #expect(receiver.acknowledged.count == 3)
        let connections = try #require(t.service.webhookWorker.sender.connections)
        #expect(connections.opened == 1 && connections.reused == 2, "opened \(connections.opened), reused \(connections.reused)")
    }

    @Test func withoutTheCAAnHTTPSReceiverIsNotTrustedAndTheAttemptSaysWhy() async throws {
        let ca = try CertificateAuthority.makeSelfSigned(commonName: "Unknown CA", now: Date())
        let receiver = try await WebhookReceiver(tls: TLSServerConfiguration(identity: try ca.issueServerCertificate(now: Date()), alpn: ["http/1.1"]))
        defer { Task { await receiver.stop() } }
        let (t, app) = try await setUp()
        let hook = try await createWebhook(t, app, url: receiver.url)
        #expect(await t.call("POST", "/v1/apps/\(app.id)/webhooks/\(hook.id)/ping", key: app.master).status == 202)
        try await t.service.webhookWorker.runUntilIdle()
        #expect(receiver.received.isEmpty)
        let deliveries = await t.call("GET", "/v1/apps/\(app.id)/webhooks/\(hook.id)/deliveries", key: app.master)
        let attempt = deliveries.body["deliveries"]?.arrayValue?.first?["attempts"]?.arrayValue?.first
        #expect(attempt?["status"] == .null && attempt?["error"]?.stringValue?.isEmpty == false, "\(deliveries.text)")
    }

    @Test func aReceiverAnswering500TwiceGetsEveryEventAcknowledgedOnceWithTheSameIds() async throws {
        let receiver = try await WebhookReceiver(answers: [500, 500], then: 200)
        defer { Task { await receiver.stop() } }
        let (t, app) = try await setUp()
        let hook = try await createWebhook(t, app, url: receiver.url, events: ["installation.retired", "push.done"])
        _ = try await pushAndFinish(t, app)
        let worker = t.service.webhookWorker
        try await worker.runUntilIdle()
        #expect(receiver.received.map(\.status) == [500])
        try await worker.runUntilIdle()
        #expect(receiver.received.count == 1, "not due again before its backoff")
        t.clock.advance(by: 61)
        try await worker.runUntilIdle()
        t.clock.advance(by: 61)
        try await worker.runUntilIdle()
        t.clock.advance(by: 61)
        try await worker.runUntilIdle()
        #expect(receiver.received.map(\.status) == [500, 500, 200])
        // Every try is the same delivery with the same events; only the last was acknowledged.
        #expect(Set(receiver.received.map(\.deliveryID)).count == 1)
        let ids = receiver.received.map { $0.events.compactMap { $0["id"]?.stringValue } }
        #expect(ids[0] == ids[1] && ids[1] == ids[2] && ids[0].count == 2)
        #expect(receiver.acknowledged.count == 2)
        #expect(receiver.received.allSatisfy { WebhookReceiver.signatureVerifies($0, secret: hook.secret) })

        let listed = await t.call("GET", "/v1/apps/\(app.id)/webhooks/\(hook.id)/deliveries", key: app.master)
        let delivery = try #require(listed.body["deliveries"]?.arrayValue?.first)
        #expect(delivery["state"] == "delivered" && delivery["eventCount"] == 2)
        let attempts = delivery["attempts"]?.arrayValue ?? []
        #expect(attempts.map { $0["status"] } == [500, 500, 200])
        #expect(attempts.first?["body"] == "answer 500", "the first bytes of the answer")
        #expect(attempts.allSatisfy { $0["latencyMs"]?.intValue != nil })
        #expect(t.service.metrics.value("herald_webhook_events_delivered_total") == 2)
        #expect(t.service.metrics.value("herald_webhook_requests_total", [("result", "failed")]) == 2)
    }

    @Test func aReceiverThatIsDownGetsEverythingInOrderWhenItComesBack() async throws {
        let receiver = try await WebhookReceiver(listening: false)
        let (t, app) = try await setUp()
        _ = try await createWebhook(t, app, url: receiver.url, events: ["installation.retired", "push.done", "delivery.failed"])
        var pushes: [String] = []
        for _ in 0..<3 {
            // Each push retires nobody new after the first, but reports its end and its failure.
            pushes.append(try await pushAndFinish(t, app))
            try await t.service.webhookWorker.runUntilIdle()
            t.clock.advance(by: 30)
        }
        let pending = await t.call("GET", "/metrics")
        #expect(pending.text.contains("herald_webhook_events_pending 5"), "\(pending.text)")
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        for _ in 0..<10 {
            t.clock.advance(by: 61)
            try await t.service.webhookWorker.runUntilIdle()
        }
        let events = receiver.acknowledged
        #expect(events.compactMap { $0["type"]?.stringValue } == ["delivery.failed", "installation.retired", "push.done", "push.done", "push.done"])
        #expect(events.filter { $0["type"] == "push.done" }.compactMap { $0["data"]?["pushId"]?.stringValue } == pushes)
        #expect(Set(events.compactMap { $0["id"]?.stringValue }).count == 5)
        #expect(await t.call("GET", "/metrics").text.contains("herald_webhook_events_pending 0"))
    }

    @Test func aRunOfGivenUpDeliveriesDisablesTheWebhookWhereOperatorsLook() async throws {
        let receiver = try await WebhookReceiver(then: 503)
        defer { Task { await receiver.stop() } }
        let logged = LogLines()
        let (t, app) = try await setUp(log: logged.handler) { config in
            config.webhooks.maxAge = 100
            config.webhooks.disableAfter = 2
        }
        let hook = try await createWebhook(t, app, url: receiver.url, events: ["push.done"])
        for _ in 0..<2 {
            _ = try await pushAndFinish(t, app)
            for _ in 0..<6 {
                try await t.service.webhookWorker.runUntilIdle()
                t.clock.advance(by: 61)
            }
        }
        let webhook = await t.call("GET", "/v1/apps/\(app.id)/webhooks/\(hook.id)", key: app.master).body
        #expect(webhook["enabled"] == false && webhook["failureRun"] == 2)
        #expect(webhook["disabled"]?["reason"]?.stringValue?.contains("2 deliveries in a row failed") == true)
        let ready = await t.call("GET", "/readyz").body
        #expect(ready["disabledWebhooks"]?.arrayValue?.first?["webhookId"]?.stringValue == hook.id)
        let appStatus = await t.call("GET", "/v1/apps/\(app.id)", key: app.master).body
        #expect(appStatus["disabledWebhooks"]?.arrayValue?.first?["id"]?.stringValue == hook.id)
        let metrics = await t.call("GET", "/metrics").text
        #expect(metrics.contains("herald_webhooks_disabled 1") && metrics.contains("herald_webhook_events_failed_total 2"))
        #expect(logged.all.contains { $0.contains("webhook \(hook.id) of app \(app.id) disabled") })
        // Disabled: new events are not recorded and nothing more is sent.
        let sent = receiver.received.count
        _ = try await pushAndFinish(t, app)
        t.clock.advance(by: 61)
        try await t.service.webhookWorker.runUntilIdle()
        #expect(receiver.received.count == sent)
        // Fixed and enabled again: the run starts afresh.
        receiver.answer([], then: 200)
        let enabled = await t.call("PATCH", "/v1/apps/\(app.id)/webhooks/\(hook.id)", key: app.master, json: ["enabled": true]).body
        #expect(enabled["enabled"] == true && enabled["failureRun"] == 0 && enabled["disabled"] == .null)
        #expect(await t.call("GET", "/readyz").body["disabledWebhooks"] == [])
        // A given-up delivery can be sent again by hand.
        let failed = await t.call("GET", "/v1/apps/\(app.id)/webhooks/\(hook.id)/deliveries", key: app.master).body["deliveries"]?.arrayValue ?? []
        let lost = try #require(failed.first { $0["state"] == "failed" }?["id"]?.stringValue)
        #expect(await t.call("POST", "/v1/apps/\(app.id)/webhooks/\(hook.id)/deliveries/\(lost)/redeliver", key: app.master).status == 202)
        try await t.service.webhookWorker.runUntilIdle()
        #expect(receiver.received.last?.status == 200 && receiver.received.last?.events.count == 1)
    }

    @Test func theAPIValidatesShowsTheSecretOnceAndKeepsAppsApart() async throws {
        let receiver = try await WebhookReceiver()
        defer { Task { await receiver.stop() } }
        let (t, app) = try await setUp()
        let base = "/v1/apps/\(app.id)/webhooks"
        #expect(await t.call("POST", base, key: app.master, json: ["url": "http://example.com/hook"]).errorField == "url", "http only for localhost")
        #expect(await t.call("POST", base, key: app.master, json: ["url": "ftp://example.com"]).status == 422)
        #expect(await t.call("POST", base, key: app.master, json: ["url": "https://u:p@example.com/"]).errorField == "url")
        #expect(await t.call("POST", base, key: app.master, json: ["url": "https://example.com", "events": ["push.sent"]]).errorField == "events[0]")
        #expect(await t.call("POST", base, key: app.master, json: ["url": "https://example.com", "secret": "mine"]).errorCode == "unknown_field")
        #expect(await t.call("POST", base, key: app.client, json: ["url": "https://example.com"]).status == 403)

        let hook = try await createWebhook(t, app, url: receiver.url)
        #expect(hook.secret.hasPrefix("whsec_") && hook.secret.count > 30)
        let listed = await t.call("GET", base, key: app.master)
        #expect(!listed.text.contains(hook.secret) && !listed.text.contains("secret"))
        #expect(listed.body["webhooks"]?.arrayValue?.first?["events"]?.arrayValue?.count == 8, "all but delivery.failed by default")
        let other = try await t.createApp("Other", withCredentials: false)
        #expect(await t.call("GET", "\(base)/\(hook.id)", key: other.master).status == 403)
        #expect(await t.call("GET", "/v1/apps/\(other.id)/webhooks/\(hook.id)", key: other.master).status == 404)

        let rotated = await t.call("POST", "\(base)/\(hook.id)/rotate-secret", key: app.master)
        let newSecret = try #require(rotated.body["secret"]?.stringValue)
        #expect(newSecret != hook.secret)
        #expect(await t.call("POST", "\(base)/\(hook.id)/ping", key: app.master).status == 202)
        try await t.service.webhookWorker.runUntilIdle()
        let ping = try #require(receiver.received.last)
        #expect(ping.events.first?["type"] == "ping" && ping.events.first?["data"]?["webhookId"]?.stringValue == hook.id)
        #expect(WebhookReceiver.signatureVerifies(ping, secret: newSecret) && !WebhookReceiver.signatureVerifies(ping, secret: hook.secret))

        let changed = await t.call("PATCH", "\(base)/\(hook.id)", key: app.master, json: ["events": ["delivery.failed"], "description": nil])
        #expect(changed.body["events"] == ["delivery.failed"] && changed.body["description"] == .null)
        #expect(await t.call("DELETE", "\(base)/\(hook.id)", key: app.master).status == 204)
        #expect(await t.call("GET", "\(base)/\(hook.id)", key: app.master).status == 404)
    }
}

/// Log lines a service wrote, for tests that check what operators are told.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var handler: LogHandler { { [self] _, message in lines.withLock { $0.append(message) } } }
}
