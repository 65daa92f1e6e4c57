import Foundation
import Synchronization
import Testing
import HeraldHTTP
@testable import HeraldSQLite
import HeraldStore
@testable import HeraldServer
import HeraldProvider

/// A full disk, made real and deterministic with SQLite's `max_page_count` on the service's own writer
/// connection: every write that needs a new page fails with SQLITE_FULL, as on a full file system.
@Suite struct StorageFullTests {
    /// Caps the store at its current size (SQLite never caps below it), or lifts the cap.
    static func limitPages(_ store: any HeraldStorage, capped: Bool) async throws {
        let database = try #require(store as? SQLiteStore).database
        try await database.withWriter { try $0.executeScript("PRAGMA max_page_count = \(capped ? 1 : 1_073_741_823)") }
    }

    /// Registers installations with bulky properties until the store refuses one; returns that answer.
    static func fill(_ handler: HTTPHandler, clientKey: String) async throws -> HTTPResponse {
        let bulky = JSON.object(Dictionary(uniqueKeysWithValues: (0..<8).map { ("p\($0)", JSON.string(String(repeating: "x", count: 400))) }))
        for n in 0..<2_000 {
            let body: JSON = ["installationId": .string("filler-\(n)"), "deviceToken": .string(token(100_000 + n)), "properties": bulky]
            let r = await handler(HTTPRequest(method: "POST", target: "/v1/installations",
                                              headers: ["authorization": "Bearer \(clientKey)", "content-type": "application/json"], body: body.bytes))
            if r.status != 201 { return r }
        }
        throw TestFailure("the capped store never filled")
    }

    static func importDevices(_ t: TestService, _ app: TestService.App, count: Int) async {
        let devices = (0..<count).map { "{\"installationId\":\"d\($0)\",\"deviceToken\":\"\(token($0 + 1))\",\"environment\":\"production\"}" }
        #expect(await t.call("POST", "/v1/installations/import", key: app.master, raw: Array(devices.joined(separator: "\n").utf8)).status == 200)
    }

    @Test func aFullStoreAnswers507IsNotReadyLogsAndResumesWithNothingLostOrSentTwice() async throws {
        let lines = Mutex<[String]>([])
        let t = try await TestService(log: { level, message in lines.withLock { $0.append("\(level.rawValue) \(message)") } })
        let app = try await t.createApp()
        await Self.importDevices(t, app, count: 300)
        let pushID = try await t.push(app, ["target": ["all": true], "content": ["alert": "accepted before the disk filled"]])

        try await Self.limitPages(t.service.store, capped: true)
        let response = try await Self.fill(t.service.handler, clientKey: app.client)
        let text = String(decoding: response.body, as: UTF8.self)
        let refused = try JSON(parsing: response.body)
        #expect(response.status == 507)
        #expect(refused["error"]?["code"] == "storage_full")
        #expect(text.contains("\"field\":null"))
        #expect(refused["error"]?["message"]?.stringValue?.contains("free disk space") == true)
        let stored = try await t.service.store.installationCount(appID: app.id)
        let bulkyLines = (0..<20).map { "{\"installationId\":\"bulk\($0)\",\"properties\":{\"note\":\"\(String(repeating: "b", count: 3_000))\"}}" }
        let imported = await t.call("POST", "/v1/installations/import", key: app.master, raw: Array(bulkyLines.joined(separator: "\n").utf8))
        #expect(imported.status == 507 && imported.errorCode == "storage_full")

        let notReady = await t.call("GET", "/readyz")
        #expect(notReady.status == 503)
        #expect(notReady.body["reason"]?.stringValue?.contains("storage full") == true)
        #expect(await t.call("GET", "/healthz").status == 200)   // the process is alive: only readiness changes

        // The accepted push goes out once; its page cannot be written, so the engine stops there (no crash,
        // nothing more sent while the disk is full) and keeps the outcomes.
        await #expect(throws: StoreError.self) { try await t.deliver() }
        #expect(t.transport.notifications.count == 300)
        await #expect(throws: StoreError.self) { try await t.deliver() }
        #expect(t.transport.notifications.count == 300)

        let logged = lines.withLock { $0 }
        #expect(logged.contains { $0.hasPrefix("error POST /v1/installations answered 507") && $0.contains("storage full") })
        #expect(logged.contains { $0.hasPrefix("error POST /v1/installations/import answered 507") })
        #expect(logged.contains { $0.hasPrefix("error storage full") && $0.contains("/readyz answers 503") })

        // Space freed: ready again, the kept page is written, the push finishes without sending anything twice.
        try await Self.limitPages(t.service.store, capped: false)
        #expect(await t.call("GET", "/readyz").status == 200)
        #expect(lines.withLock { $0 }.contains { $0.hasPrefix("info storage has room again") })
        try await t.deliver()
        let status = await t.status(app, pushID)
        #expect(status["status"] == "done" && status["counts"]?["sent"] == 300 && status["counts"]?["pending"] == 0)
        #expect(t.transport.notifications.count == 300)
        #expect(try await t.service.store.installationCount(appID: app.id) == stored)
        #expect(await t.call("POST", "/v1/installations", key: app.client,
                             json: ["installationId": "after", "deviceToken": .string(token(9_999_999))]).status == 201)
    }

    /// Fills the store while a batch claimed from the queue is with APNs, so its outcomes cannot be written.
    final class FillingTransport: PushTransport {
        let inner = RecordingTransport()
        let fillOnce = Mutex<(@Sendable () async throws -> Void)?>(nil)

        func deliver(_ batch: OutgoingBatch) async -> [DeliveryResult] {
            if let fill = fillOnce.withLock({ f in defer { f = nil }; return f }) { try? await fill() }
            return await inner.deliver(batch)
        }
    }

    @Test func outcomesOfClaimedRowsAreKeptUntilTheStoreTakesThem() async throws {
        let transport = FillingTransport()
        let lines = Mutex<[String]>([])
        let t = try await TestService(transport: transport.inner, log: { level, message in lines.withLock { $0.append("\(level.rawValue) \(message)") } })
        let app = try await t.createApp()
        await Self.importDevices(t, app, count: 300)
        // Rows to retry come back from the queue (claimed, in flight) rather than from a fan-out page.
        transport.inner.answer { DeliveryResult(id: $0.id, status: 503) }
        let pushID = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        try await t.deliver()
        #expect(transport.inner.notifications.count == 300)
        // The next answers make every row longer (a long reason), so recording them needs new pages.
        let reason = String(repeating: "r", count: 200)
        transport.inner.answer { DeliveryResult(id: $0.id, status: 503, reason: reason) }
        let service = t.service
        transport.fillOnce.withLock { $0 = {
            try await Self.limitPages(service.store, capped: true)
            _ = try await Self.fill(service.handler, clientKey: app.client)
        } }
        t.clock.advance(by: 3_600)
        let engine = DeliveryEngine(env: t.service.env, transport: transport)
        // The batch's outcomes cannot be written: the dispatch fails (logged), the outcomes stay in memory,
        // and no round sends anything while they cannot be written.
        for _ in 0..<3 { _ = try? await engine.runUntilIdle() }
        #expect(transport.inner.notifications.count == 600)
        #expect(lines.withLock { $0 }.contains { $0.hasPrefix("error dispatch of push \(pushID) failed: storage full") && $0.contains("kept") })
        await #expect(throws: StoreError.self) { try await engine.writeUnwritten() }

        try await Self.limitPages(t.service.store, capped: false)
        try await engine.runUntilIdle()
        var status = await t.status(app, pushID)
        #expect(status["counts"]?["pending"] == 300)   // the kept retries, written once there was room
        transport.inner.answer { DeliveryResult(id: $0.id, status: 200) }
        t.clock.advance(by: 3_600)
        try await engine.runUntilIdle()
        status = await t.status(app, pushID)
        #expect(status["status"] == "done" && status["counts"]?["sent"] == 300 && status["counts"]?["pending"] == 0)
        #expect(transport.inner.notifications.count == 900)
    }

    @Test func herald_serveLogsWhatTheServiceReports() async throws {
        let lines = Mutex<[String]>([])
        var settings = ProviderServer.Settings()
        settings.port = 0
        settings.simulatorEnabled = false
        settings.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-full-\(UUID().uuidString)").path
        settings.service.databasePath = settings.dataDirectory + "/herald.sqlite"
        settings.service.adminKey = testAdminKey
        settings.service.runWorkers = false
        let server = try await ProviderServer.start(settings, log: { level, message in lines.withLock { $0.append("\(level.rawValue) \(message)") } })
        let created = await server.service.handler(HTTPRequest(method: "POST", target: "/v1/apps",
            headers: ["authorization": "Bearer \(testAdminKey)", "content-type": "application/json"], body: (["name": "full"] as JSON).bytes))
        let clientKey = try #require(try JSON(parsing: created.body)["keys"]?["client"]?.stringValue)
        try await Self.limitPages(server.service.store, capped: true)
        #expect(try await Self.fill(server.service.handler, clientKey: clientKey).status == 507)
        #expect(lines.withLock { $0 }.contains { $0.hasPrefix("error POST /v1/installations answered 507: storage full") })
        #expect(lines.withLock { $0 }.contains { $0.hasPrefix("error storage full") })
        await server.stop()
    }
}
