import Foundation
import Testing
@testable import HeraldPostgres
@testable import HeraldServer

/// On PostgreSQL a large import ends by refreshing the planner's statistics of the tables it wrote, so the
/// first push after it is planned for the rows that are there: without that, the first push after importing
/// 300,000 installations ran at a sixth of the rate of the next (docs/performance.md, "The first push after
/// an import"). Manual ANALYZE is what sets `last_analyze`; autovacuum sets `last_autoanalyze` instead.
@Suite(.enabled(if: postgresTestURL != nil, "needs HERALD_TEST_POSTGRES_URL (make test starts a server)"))
struct ImportStatisticsTests {
    func lastAnalyzed(_ url: String) async throws -> [String: Bool] {
        let store = try await PostgresStore(url: url, poolSize: 1)
        let rows = try await store.database.read { db in
            try db.all("SELECT relname, last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE relname IN ('installations', 'installation_tags')") {
                ($0.text(0), $0.text(1) == "t")
            }
        }
        await store.close()
        return Dictionary(uniqueKeysWithValues: rows)
    }

    func importLines(_ count: Int) async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-analyze-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let t = try await TestService(directory: directory, store: .postgres)
        let app = try await t.createApp()
        let lines = (0..<count).map { #"{"deviceToken":"\#(token($0 + 1))","tags":["t\#($0 % 3)"]}"# }.joined(separator: "\n")
        let imported = await t.call("POST", "/v1/installations/import", key: app.master, raw: Array(lines.utf8))
        #expect(imported.status == 200 && imported.body["created"] == .int(count), "\(imported.text)")
        return try String(contentsOf: directory.appendingPathComponent("postgres-url"), encoding: .utf8)
    }

    @Test func aLargeImportRefreshesThePlannersStatistics() async throws {
        let url = try await importLines(InstallationsService.importSizeWorthRefreshing)
        #expect(try await lastAnalyzed(url) == ["installations": true, "installation_tags": true])
    }

    @Test func aSmallImportLeavesThemToAutovacuum() async throws {
        let url = try await importLines(100)
        #expect(try await lastAnalyzed(url) == ["installations": false, "installation_tags": false])
    }
}
