import Foundation
import Synchronization

/// Values read from the store in the last `window` seconds, so a hot path does not read them each time
/// (API keys that passed, apps a push names).
///
/// A change made through this server forgets what it changed (`forget`, `forgetAll`) once the store has
/// it, and a read that was under way meanwhile is not remembered: `remember` takes the `generation` seen
/// before the read, and every forget moves it. A change made through another server sharing the store is
/// seen here within `window`. At most `capacity` entries: when full, expired ones go, and if none had
/// expired, all of them.
final class RecentValues<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    let window: TimeInterval
    let capacity: Int

    private struct State {
        var entries: [Key: (value: Value, readAt: Date)] = [:]
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())

    init(window: TimeInterval, capacity: Int) {
        self.window = window
        self.capacity = capacity
    }

    /// The value read less than `window` ago (a clock that went back counts as expired).
    func value(for key: Key, now: Date) -> Value? {
        state.withLock { s in
            guard let entry = s.entries[key] else { return nil }
            let age = now.timeIntervalSince(entry.readAt)
            return age >= 0 && age < window ? entry.value : nil
        }
    }

    var count: Int { state.withLock { $0.entries.count } }

    /// Where a read starts: pass it to `remember`.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Keeps `value`, unless something was forgotten since `generation` was taken.
    func remember(_ value: Value, for key: Key, readAt: Date, generation: UInt64) {
        state.withLock { s in
            guard s.generation == generation else { return }
            if s.entries.count >= capacity, s.entries[key] == nil {
                s.entries = s.entries.filter { _, entry in
                    let age = readAt.timeIntervalSince(entry.readAt)
                    return age >= 0 && age < window
                }
                if s.entries.count >= capacity { s.entries.removeAll() }
            }
            s.entries[key] = (value, readAt)
        }
    }

    func forget(_ key: Key) {
        state.withLock { s in
            s.entries[key] = nil
            s.generation &+= 1
        }
    }

    func forgetAll() {
        state.withLock { s in
            s.entries.removeAll()
            s.generation &+= 1
        }
    }
}
