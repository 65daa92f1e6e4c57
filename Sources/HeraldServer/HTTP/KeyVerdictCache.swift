import Foundation
import Synchronization

/// Keys that passed a check in the last `window` seconds, by their SHA-256, so a request does not read
/// the store for its key (that read was a round trip to the store's reader on every request).
///
/// Only successful checks are kept: an unknown or revoked key is looked up every time. A rotation or an
/// app deletion on this node forgets everything at once (`forgetAll`); a key revoked elsewhere (another
/// node of a shared store) works here for at most `window` more seconds. A check that started before a
/// `forgetAll` is not remembered (its answer may predate the revocation). At most `capacity` entries:
/// when full, expired ones go, and if none had expired, all of them.
final class KeyVerdictCache: Sendable {
    /// How long a successful check is reused; the longest a key revoked on another node keeps working here.
    static let window: TimeInterval = 2
    static let capacity = 4_096

    private struct Entry {
        var principal: Principal
        var checkedAt: Date
    }

    private struct State {
        var entries: [[UInt8]: Entry] = [:]
        /// Bumped by `forgetAll`; a check remembers its answer only if it has not moved since it began.
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The principal of a key checked less than `window` ago (a clock that went back counts as expired).
    func principal(hash: [UInt8], now: Date) -> Principal? {
        state.withLock { s in
            guard let entry = s.entries[hash] else { return nil }
            let age = now.timeIntervalSince(entry.checkedAt)
            return age >= 0 && age < Self.window ? entry.principal : nil
        }
    }

    var count: Int { state.withLock { $0.entries.count } }

    /// Where a check starts: pass it to `remember`.
    var generation: UInt64 { state.withLock { $0.generation } }

    func remember(hash: [UInt8], _ principal: Principal, checkedAt: Date, generation: UInt64) {
        state.withLock { s in
            guard s.generation == generation else { return }
            if s.entries.count >= Self.capacity, s.entries[hash] == nil {
                s.entries = s.entries.filter { _, entry in
                    let age = checkedAt.timeIntervalSince(entry.checkedAt)
                    return age >= 0 && age < Self.window
                }
                if s.entries.count >= Self.capacity { s.entries.removeAll() }
            }
            s.entries[hash] = Entry(principal: principal, checkedAt: checkedAt)
        }
    }

    /// After a key was revoked or deleted here: every key is checked against the store again.
    func forgetAll() {
        state.withLock { s in
            s.entries.removeAll()
            s.generation &+= 1
        }
    }
}
