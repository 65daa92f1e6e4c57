import Synchronization

/// Statistics for a registry that fills from empty. PostgreSQL plans a prepared statement generically after
/// five runs and keeps that plan until the table's statistics change. Planned while `installations` had no
/// statistics, the token lookup of every registration walked `installations_app_seq` (all of the app's
/// rows) and filtered by token, and the tags' read walked the app's part of their primary key: a new
/// store's registrations got slower with every row, 0.94 ms a lookup after 6,000 (docs/performance.md,
/// "Round 15"). Autovacuum's analyze fixes that, but only on its next round (a minute by default), and the
/// first registrations of a new deployment (or of row 4's benchmark) come in a burst before it. So once this
/// store (one per process) has created `rows` installations, it analyzes the registry if PostgreSQL's
/// statistics still count fewer than half of them; the ANALYZE invalidates every connection's cached plans.
/// Best effort, once: a failed ANALYZE is left to autovacuum. `close()` waits for one under way. Any statistics
/// taken with rows in the table are enough: the plans then choose the (app, token) and seq indexes at
/// every size. (Statistics of the empty table are not: PostgreSQL then trusts it is empty and scans it.)
final class RegistryStatistics: Sendable {
    let rows: Int
    private let created = Atomic<Int>(0)
    /// The check started at the `rows`-th installation, for `close()` to wait for: true if it analyzed.
    let analysis = Mutex<Task<Bool, Never>?>(nil)

    init(rows: Int = 1_000) { self.rows = rows }

    /// Counts a created installation; true exactly once, for the `rows`-th.
    func countCreated() -> Bool {
        created.wrappingAdd(1, ordering: .relaxed).newValue == rows
    }
}

extension PostgresStore {
    /// After a registration: analyzes the registry in the background once enough rows were created.
    func registered(created: Bool) {
        guard created, registryStatistics.countCreated() else { return }
        let analysis = Task.detached { [self] in (try? await analyzeRegistryIfUnmeasured()) ?? false }
        registryStatistics.analysis.withLock { $0 = analysis }
    }

    /// ANALYZE of the installation tables when PostgreSQL's row estimate for them is missing (-1) or below
    /// half of what this store alone created; true if it ran.
    @discardableResult
    func analyzeRegistryIfUnmeasured() async throws -> Bool {
        let rows = registryStatistics.rows
        return try await database.withConnection { db in
            let estimate = try db.first("SELECT reltuples FROM pg_class WHERE oid = 'installations'::regclass") { $0.double(0) } ?? -1
            guard estimate < Double(rows) / 2 else { return false }
            _ = try db.execute("ANALYZE installations, installation_tags")
            return true
        }
    }
}
