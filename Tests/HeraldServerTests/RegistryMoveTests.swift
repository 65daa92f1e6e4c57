import Foundation
import Testing
@testable import HeraldServer

/// Moving from one node on SQLite to PostgreSQL: the registry leaves the SQLite service by export (what
/// `herald installations export` calls) and enters the PostgreSQL one by import (`herald installations
/// import`), unchanged, inactive installations included.
@Suite struct RegistryMoveTests {
    @Test(.enabled(if: postgresTestURL != nil, "needs HERALD_TEST_POSTGRES_URL"), arguments: ["jsonl", "csv"])
    func aRegistryMovesFromSQLiteToPostgreSQLUnchanged(format: String) async throws {
        let sqlite = try await TestService(store: .sqlite)
        let postgres = try await TestService(store: .postgres)
        let source = try await sqlite.createApp("source")
        let target = try await postgres.createApp("target")
        try await TransferAndOperationsTests().seed(sqlite, source)
        // APNs retires a-1 (Unregistered), so the registry holds an inactive installation with its reason.
        sqlite.transport.answer { n in
            n.deviceToken == token(1) ? DeliveryResult(id: n.id, status: 410, reason: "Unregistered", unregisteredAt: start)
                                      : DeliveryResult(id: n.id, status: 200)
        }
        sqlite.clock.advance(by: 5)
        _ = try await sqlite.push(source, ["target": ["all": true], "content": ["alert": "x"]])
        try await sqlite.deliver()

        let fields = TransferAndOperationsTests.compared + ["inactiveReason", "inactiveAt"]
        func snapshot(_ t: TestService, _ app: TestService.App) async -> [JSON] {
            let list = await t.call("GET", "/v1/installations?limit=1000", key: app.master).body["installations"]?.arrayValue ?? []
            return list.map { item in .object(Dictionary(uniqueKeysWithValues: fields.map { ($0, item[$0] ?? .null) })) }
        }
        let before = await snapshot(sqlite, source)
        #expect(before.count == 3 && before.filter { $0["active"] == false }.map { $0["inactiveReason"] } == ["Unregistered"])

        let exported = await sqlite.call("GET", "/v1/installations/export?format=\(format)", key: source.master)
        #expect(exported.status == 200)
        let imported = await postgres.call("POST", "/v1/installations/import?format=\(format)", key: target.master, raw: Array(exported.text.utf8))
        #expect(imported.body["created"] == 3 && imported.body["failed"] == 0, "\(imported.text)")
        #expect(await snapshot(postgres, target) == before)
        // Exported again from PostgreSQL, the registry reads the same, line for line.
        let again = await postgres.call("GET", "/v1/installations/export?format=\(format)", key: target.master)
        // (Ids are the new database's own, and times of record keeping are the import's.)
        func lines(_ text: String) throws -> [JSON] {
            try text.split(separator: "\n").map { line in
                guard format == "jsonl", case .object(var o) = try JSON(parsing: String(line)) else { return .string(String(line)) }
                for key in ["id", "createdAt", "updatedAt", "lastSeenAt"] { o[key] = nil }
                return .object(o)
            }
        }
        #expect(try lines(again.text) == lines(exported.text), "\(again.text)\n\(exported.text)")
        // The retired device is not pushed to from PostgreSQL either.
        let dry = await postgres.call("POST", "/v1/pushes", key: target.master, json: ["target": ["all": true], "content": ["alert": "x"], "dryRun": true])
        #expect(dry.body["audience"] == 2)
    }
}
