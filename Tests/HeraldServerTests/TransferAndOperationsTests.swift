import Foundation
import Testing
import HeraldHTTP
@testable import HeraldServer

@Suite struct TransferAndOperationsTests {
    func seed(_ t: TestService, _ app: TestService.App) async throws {
        try await t.register(app, "a-1", token: token(1), tags: ["news", "vip"],
                             extra: ["alias": "ann, \"the\" first", "locale": "fr-FR", "timeZone": "Europe/Paris", "badge": 4,
                                     "properties": ["plan": "gold", "seats": 3, "beta": true]])
        try await t.register(app, "a-2", token: token(2), extra: ["environment": "sandbox", "userId": "u-2", "appVersion": "1.0"])
        try await t.register(app, "a-3", token: token(3), tags: ["news"])
    }

    static let compared = ["installationId", "deviceToken", "environment", "topic", "tags", "alias", "userId", "locale", "timeZone",
                           "badge", "appVersion", "osVersion", "deviceModel", "properties", "active"]

    func snapshot(_ t: TestService, _ app: TestService.App) async -> [JSON] {
        let list = await t.call("GET", "/v1/installations?limit=1000", key: app.master).body["installations"]?.arrayValue ?? []
        return list.map { item in .object(Dictionary(uniqueKeysWithValues: Self.compared.map { ($0, item[$0] ?? .null) })) }
    }

    @Test(arguments: ServerStore.available, ["jsonl", "csv"])
    func exportImportsBackUnchangedIntoAnotherApp(store: ServerStore, format: String) async throws {
        let t = try await TestService(store: store)
        let source = try await t.createApp("source")
        let target = try await t.createApp("target")
        try await seed(t, source)
        let exported = await t.call("GET", "/v1/installations/export?format=\(format)", key: source.master)
        #expect(exported.status == 200)
        #expect(exported.text.split(separator: "\n").count == (format == "csv" ? 4 : 3))
        let imported = await t.call("POST", "/v1/installations/import?format=\(format)", key: target.master, raw: Array(exported.text.utf8))
        #expect(imported.status == 200)
        #expect(imported.body["created"] == 3 && imported.body["failed"] == 0)
        #expect(await snapshot(t, target) == (await snapshot(t, source)))
        // Importing again updates in place.
        let again = await t.call("POST", "/v1/installations/import?format=\(format)", key: target.master, raw: Array(exported.text.utf8))
        #expect(again.body["created"] == 0 && again.body["updated"] == 3)
    }

    /// Issue #13: import dropped `active`, so retired installations came back active (and would be pushed to).
    @Test(arguments: ServerStore.available, ["jsonl", "csv"])
    func inactiveInstallationsImportBackInactive(store: ServerStore, format: String) async throws {
        let t = try await TestService(store: store)
        let source = try await t.createApp("source")
        let target = try await t.createApp("target")
        try await seed(t, source)
        // APNs retires a-1 (Unregistered); a-4 takes a-3's token, which leaves a-3 Replaced without a token.
        t.transport.answer { n in
            n.deviceToken == token(1) ? DeliveryResult(id: n.id, status: 410, reason: "Unregistered", unregisteredAt: start)
                                      : DeliveryResult(id: n.id, status: 200)
        }
        t.clock.advance(by: 5)
        _ = try await t.push(source, ["target": ["all": true], "content": ["alert": "x"]])
        try await t.deliver()
        t.clock.advance(by: 5)
        _ = await t.call("POST", "/v1/installations", key: source.client, json: ["installationId": "a-4"])
        try await t.register(source, "a-4", token: token(3))
        let fields = Self.compared + ["inactiveReason", "inactiveAt"]
        func snapshot(_ app: TestService.App) async -> [JSON] {
            let list = await t.call("GET", "/v1/installations?limit=1000", key: app.master).body["installations"]?.arrayValue ?? []
            return list.map { item in .object(Dictionary(uniqueKeysWithValues: fields.map { ($0, item[$0] ?? .null) })) }
        }
        let before = await snapshot(source)
        #expect(before.filter { $0["active"] == false }.map { $0["inactiveReason"] } == ["Unregistered", "Replaced"])

        t.clock.advance(by: 3600)
        let exported = await t.call("GET", "/v1/installations/export?format=\(format)", key: source.master)
        let imported = await t.call("POST", "/v1/installations/import?format=\(format)", key: target.master, raw: Array(exported.text.utf8))
        #expect(imported.body["created"] == 4 && imported.body["failed"] == 0, "\(imported.text)")
        #expect(await snapshot(target) == before)
        // The retired token is not pushed to from the new app either.
        let dry = await t.call("POST", "/v1/pushes", key: target.master, json: ["target": ["all": true], "content": ["alert": "x"], "dryRun": true])
        #expect(dry.body["audience"] == 2)

        let bad = await t.call("POST", "/v1/installations/import?format=jsonl", key: target.master,
                               raw: Array(#"{"installationId":"z","active":"no"}"#.utf8))
        #expect(bad.body["failed"] == 1 && bad.body["errors"]?.arrayValue?.first?["field"] == "active", "\(bad.text)")
    }

    @Test func importReportsBadLinesAndStoresTheGoodOnes() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        let lines = [
            #"{"installationId":"ok-1","deviceToken":"\#(token(1))"}"#,
            #"{"installationId":"bad","deviceToken":"nothex"}"#,
            "not json",
            "",
            #"{"installationId":"ok-2","tags":["a"]}"#,
        ].joined(separator: "\n")
        let r = await t.call("POST", "/v1/installations/import", key: app.master, raw: Array(lines.utf8))
        #expect(r.body["created"] == 2 && r.body["failed"] == 2)
        #expect(r.body["errors"]?.arrayValue?.compactMap { $0["line"]?.intValue } == [2, 3])
        #expect(r.body["errors"]?.arrayValue?.first?["field"] == "deviceToken")
        let csvWithoutHeader = await t.call("POST", "/v1/installations/import?format=csv", key: app.master, raw: Array("a,b\n".utf8))
        #expect(csvWithoutHeader.status == 422)
        #expect(await t.call("POST", "/v1/installations/import", key: app.client, raw: Array(lines.utf8)).status == 403)
    }

    /// A NUL character (U+0000) in an installation's text is refused with an error naming its field, and an
    /// import reports that line alone: PostgreSQL's text cannot hold it, and its error used to fail the
    /// whole batch the line was in, losing the lines around it.
    @Test(arguments: ServerStore.available) func aNULInAnInstallationsTextIsRefusedAlone(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        let registered = await t.call("POST", "/v1/installations", key: app.client, json: ["installationId": "n-0", "alias": "a\u{0}b"])
        #expect(registered.status == 422 && registered.errorField == "alias", "\(registered.text)")
        #expect(registered.body["error"]?["message"]?.stringValue?.contains("U+0000") == true)
        let lines = [
            #"{"installationId":"n-1","deviceToken":"\#(token(1))","tags":["a"]}"#,
            #"{"installationId":"n-2","userId":"u\u0000","deviceToken":"\#(token(2))"}"#,
            #"{"installationId":"n-3","alias":"ok","deviceToken":"\#(token(3))"}"#,
        ].joined(separator: "\n")
        let imported = await t.call("POST", "/v1/installations/import", key: app.master, raw: Array(lines.utf8))
        #expect(imported.status == 200, "\(imported.text)")
        #expect(imported.body["created"] == 2 && imported.body["failed"] == 1, "\(imported.text)")
        let error = imported.body["errors"]?.arrayValue?.first
        #expect(error?["line"] == 2 && error?["field"] == "userId")
        #expect(try await t.service.store.installationCount(appID: app.id) == 2)
    }

    @Test func healthReadinessAndMetrics() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        try await t.register(app, "i", token: token(1))
        _ = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        #expect(await t.call("GET", "/healthz").status == 200)
        #expect(await t.call("GET", "/readyz").body["status"] == "ready")
        var metrics = await t.call("GET", "/metrics").text
        #expect(metrics.contains("# TYPE herald_pushes_accepted_total counter"))
        #expect(metrics.contains("herald_pushes_accepted_total 1"))
        #expect(metrics.contains("herald_queue_pending 0"))   // accepted, not fanned out yet
        try await t.deliver()
        metrics = await t.call("GET", "/metrics").text
        #expect(metrics.contains("herald_deliveries_total{result=\"sent\"} 1"))
        #expect(metrics.contains("herald_http_requests_total{route=\"/v1/pushes\",status=\"202\"} 1"))
        #expect(metrics.contains("# TYPE herald_transport_batch_seconds histogram"))
        #expect(metrics.contains("herald_transport_batch_seconds_bucket{le=\"+Inf\"} 1"))
        #expect(metrics.contains("herald_transport_batch_seconds_count 1"))
        await t.service.shutdown()
        #expect(await t.call("GET", "/readyz").status == 503)
    }

    @Test func openAPIDocumentListsExactlyTheRoutesOfTheRouter() async throws {
        let t = try await TestService()
        let doc = await t.call("GET", "/openapi.json")
        #expect(doc.status == 200)
        #expect(doc.body["openapi"] == "3.1.0")
        let paths = try #require(doc.body["paths"]?.objectValue)
        var documented = Set<String>()
        for (path, item) in paths {
            for method in item.objectValue?.keys ?? [:].keys { documented.insert("\(method.uppercased()) \(path)") }
        }
        let routed = Set(t.service.routes.map { "\($0.method) \($0.pattern)" })
        #expect(routed.subtracting(documented).isEmpty, "routes missing from the document: \(routed.subtracting(documented).sorted())")
        #expect(documented.subtracting(routed).isEmpty, "documented but not routed: \(documented.subtracting(routed).sorted())")
        // Every $ref points at a schema that exists.
        let schemas = Set(doc.body["components"]?["schemas"]?.objectValue?.keys.map { $0 } ?? [])
        let refs = doc.text.components(separatedBy: "#/components/schemas/").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(!refs.isEmpty && Set(refs).isSubset(of: schemas))
    }
}

@Suite struct RetentionTests {
    @Test(arguments: ServerStore.available) func finishedPushesAreDeletedAfterTheRetention(_ store: ServerStore) async throws {
        let t = try await TestService(store: store) { $0.retentionDays = 2 }
        let app = try await t.createApp()
        try await t.register(app, "i", token: token(1))
        let old = try await t.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        try await t.deliver()
        t.clock.advance(by: 86_400 * 2 + 3_600)
        let recent = try await t.push(app, ["target": ["all": true], "content": ["alert": "y"]])
        try await t.deliver()
        #expect(await t.call("GET", "/v1/pushes/\(old)", key: app.master).status == 404)
        #expect(await t.call("GET", "/v1/pushes/\(recent)", key: app.master).body["status"] == "done")
    }
}
