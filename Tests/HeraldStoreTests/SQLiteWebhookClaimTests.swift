import Foundation
import Testing
@testable import HeraldSQLite

/// Forming a webhook's next batch asks whether it has a batch of events pending. Its deliveries stay for
/// `push.retentionDays`, thousands after a few large fan-outs, so that question must be a search of the
/// pending ones, not a walk of the history, on the one writer every claim runs on.
@Suite struct SQLiteWebhookClaimTests {
    @Test func thePendingBatchIsFoundWithoutReadingTheWebhooksHistory() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-claim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("herald.sqlite").path
        _ = try await SQLiteStore(path: path)   // migrates the file
        let db = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1_000)
        let plan = try db.all("EXPLAIN QUERY PLAN " + SQLiteStore.webhooksReadyForABatch) { $0.text(3) }
        let pendingCheck = try #require(plan.first { $0.contains("webhook_deliveries") })
        #expect(pendingCheck.contains("webhook_deliveries_pending_events"), "\(plan)")
        #expect(!plan.contains { $0.contains("webhook_deliveries_webhook") }, "\(plan)")
    }
}
