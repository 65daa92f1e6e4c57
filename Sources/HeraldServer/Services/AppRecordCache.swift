import Foundation
import HeraldStore
import Synchronization

/// Apps read in the last `window` seconds, so accepting a push does not wait on a store read of its app
/// (its topic and whether it exists): that read was a round trip to the store's reader, ~150 µs of a
/// one-device push's time from the API call to the device.
///
/// Every change to an app made through this server (an update, a deletion, a pause by the delivery engine, a
/// credential saved or deleted, which can lift a pause) forgets the app at once, and a read that was under
/// way while it changed is not remembered (generation counter). A change made through another server
/// sharing the database is seen here within `window`, as for API keys (`KeyVerdictCache`). At most
/// `capacity` apps: when full, the cache starts over.
final class AppRecordCache: Sendable {
    static let window: TimeInterval = 2
    static let capacity = 1_024

    private struct State {
        var entries: [String: (app: AppRecord, readAt: Date)] = [:]
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The app, from a read less than `window` ago or from `read` (nil: no such app, which is not kept).
    func app(id: String, now: Date, read: () async throws -> AppRecord?) async throws -> AppRecord? {
        let (cached, generation) = state.withLock { s -> (AppRecord?, UInt64) in
            guard let entry = s.entries[id] else { return (nil, s.generation) }
            let age = now.timeIntervalSince(entry.readAt)
            return (age >= 0 && age < Self.window ? entry.app : nil, s.generation)
        }
        if let cached { return cached }
        guard let app = try await read() else { return nil }
        state.withLock { s in
            guard s.generation == generation else { return }
            if s.entries.count >= Self.capacity { s.entries.removeAll() }
            s.entries[id] = (app, now)
        }
        return app
    }

    /// After a change to an app on this server: its next use reads the store.
    func forget(id: String) {
        state.withLock { s in
            s.entries[id] = nil
            s.generation &+= 1
        }
    }
}
