import Foundation
import Synchronization

/// Recently resolved compatibility identities (and ids that resolved to none), held for `lifetime` at most and
/// `capacity` entries at most, so authenticating a LeanCloud or JPush request does not read and unseal the
/// identity each time.
final class CompatIdentityCache: Sendable {
    struct Identity: Sendable { var appID: String; var secrets: [String: String] }
    /// `identity` is nil when no app has the id.
    struct Entry: Sendable { var identity: Identity?; var at: Date }

    /// A change made through another server sharing the database is seen within this time.
    static let lifetime: TimeInterval = 30
    /// Unknown ids are cached too (a flood of made-up ids must not reach the store each time); past this many
    /// entries the cache starts over.
    static let capacity = 10_000

    private let entries = Mutex<[String: Entry]>([:])

    func get(provider: String, publicID: String, now: Date) -> Entry? {
        entries.withLock { map in
            guard let entry = map[provider + "\u{0}" + publicID], entry.at <= now, now.timeIntervalSince(entry.at) < Self.lifetime else { return nil }
            return entry
        }
    }

    func put(provider: String, publicID: String, _ identity: Identity?, now: Date) {
        entries.withLock { map in
            if map.count >= Self.capacity { map.removeAll() }
            map[provider + "\u{0}" + publicID] = Entry(identity: identity, at: now)
        }
    }

    func removeAll() { entries.withLock { $0.removeAll() } }
}
