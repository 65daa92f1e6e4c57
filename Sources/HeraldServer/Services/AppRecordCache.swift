import Foundation
import HeraldStore

/// Apps read in the last `window` seconds, so accepting a push does not wait on a store read of its app
/// (its topic and whether it exists): that read was a round trip to the store's reader, ~150 µs of a
/// one-device push's time from the API call to the device.
///
/// Every change to an app made through this server (an update, a deletion, a pause by the delivery engine, a
/// credential saved or deleted, which can lift a pause) forgets the app at once, and a read that was under
/// way while it changed is not remembered. A change made through another server sharing the database is
/// seen here within `window`, as for API keys (`KeyVerdictCache`); a push for an app deleted there is
/// still refused, by the store.
final class AppRecordCache: Sendable {
    static let window: TimeInterval = 2
    static let capacity = 1_024

    private let apps = RecentValues<String, AppRecord>(window: window, capacity: capacity)

    /// The app, from a read less than `window` ago or from `read` (nil: no such app, which is not kept).
    func app(id: String, now: Date, read: () async throws -> AppRecord?) async throws -> AppRecord? {
        if let cached = apps.value(for: id, now: now) { return cached }
        let generation = apps.generation
        guard let app = try await read() else { return nil }
        apps.remember(app, for: id, readAt: now, generation: generation)
        return app
    }

    /// After a change to an app on this server: its next use reads the store.
    func forget(id: String) { apps.forget(id) }
}
