import Foundation
import Synchronization
import HeraldStore

/// An app's identity on a hosted push service it moves from (LeanCloud: App ID, App Key, Master Key; JPush:
/// App Key, Master Secret), so that service's SDKs keep working against Herald. The secrets verify signatures
/// (LeanCloud's `X-LC-Sign` is an MD5 over the key), so they are sealed, not hashed; only hints are shown.
struct CompatIdentitiesService: Sendable {
    let env: ServiceEnvironment
    /// Resolved identities, so a compat API's every request does not read and unseal the same row.
    let cache = ResolvedCache()

    /// What an operator sees: the public id and each secret's first characters.
    struct Summary: Sendable, Equatable {
        var provider: String
        var publicID: String
        var hints: [String: String]
        var updatedAt: Date
    }

    /// Sets (or replaces) the app's identity for `provider`. A public id that another app already uses is a 409.
    func put(appID: String, provider: String, publicID: String, secrets: [String: String]) async throws -> Summary {
        let app = try await AppsService(env: env).get(id: appID)
        let now = env.clock.now()
        let sealed = try env.crypto.seal(JSON.object(secrets.mapValues { .string($0) }).bytes)
        let hints = secrets.mapValues { String($0.prefix(4)) + "…" }
        let created = try await env.store.compatIdentity(appID: app.id, provider: provider)?.createdAt ?? now
        let record = CompatIdentityRecord(appID: app.id, provider: provider, publicID: publicID, sealed: sealed,
                                          hint: JSON.object(hints.mapValues { .string($0) }).encoded, createdAt: created, updatedAt: now)
        do {
            try await env.store.saveCompatIdentity(record)
        } catch StoreError.conflict {
            throw ServiceError.conflict("Another app already uses this \(provider) id; each id belongs to one app.", field: "appId")
        }
        cache.removeAll()
        return Self.summary(record)
    }

    func get(appID: String, provider: String) async throws -> Summary {
        let app = try await AppsService(env: env).get(id: appID)
        guard let record = try await env.store.compatIdentity(appID: app.id, provider: provider) else {
            throw ServiceError.notFound("The app's \(provider) identity")
        }
        return Self.summary(record)
    }

    func delete(appID: String, provider: String) async throws {
        let app = try await AppsService(env: env).get(id: appID)
        guard try await env.store.deleteCompatIdentity(appID: app.id, provider: provider) else {
            throw ServiceError.notFound("The app's \(provider) identity")
        }
        cache.removeAll()
    }

    /// The Herald app and the secrets behind a public id a request presents; nil when no app has it.
    func resolve(provider: String, publicID: String) async throws -> (appID: String, secrets: [String: String])? {
        let now = env.clock.now()
        if let hit = cache.value(provider: provider, publicID: publicID, now: now) { return hit }
        guard let resolved = try await resolveFromStore(provider: provider, publicID: publicID) else { return nil }
        cache.store(resolved, provider: provider, publicID: publicID, now: now)
        return resolved
    }

    private func resolveFromStore(provider: String, publicID: String) async throws -> (appID: String, secrets: [String: String])? {
        guard let record = try await env.store.compatIdentity(provider: provider, publicID: publicID) else { return nil }
        guard case .object(let fields) = try JSON(parsing: try env.crypto.open(record.sealed)) else { return nil }
        return (record.appID, fields.compactMapValues(\.stringValue))
    }

    static func summary(_ record: CompatIdentityRecord) -> Summary {
        let hints: [String: String]
        if case .object(let fields)? = try? JSON(parsing: Array(record.hint.utf8)) {
            hints = fields.compactMapValues(\.stringValue)
        } else {
            hints = [:]
        }
        return Summary(provider: record.provider, publicID: record.publicID, hints: hints, updatedAt: record.updatedAt)
    }
}

/// Identities found by public id, each kept `ttl` seconds. This process drops them all when it changes an
/// identity; another node (several servers on one PostgreSQL) sees a change within `ttl`. Unknown ids are
/// not kept, and at most `capacity` are, so requests with made-up ids cannot grow it.
final class ResolvedCache: Sendable {
    static let ttl: TimeInterval = 10
    static let capacity = 1000
    private let entries = Mutex<[String: (appID: String, secrets: [String: String], expires: Date)]>([:])

    func value(provider: String, publicID: String, now: Date) -> (appID: String, secrets: [String: String])? {
        entries.withLock { e in
            guard let hit = e["\(provider)\u{0}\(publicID)"], hit.expires > now else { return nil }
            return (hit.appID, hit.secrets)
        }
    }

    func store(_ resolved: (appID: String, secrets: [String: String]), provider: String, publicID: String, now: Date) {
        entries.withLock { e in
            if e.count >= Self.capacity { e.removeAll() }
            e["\(provider)\u{0}\(publicID)"] = (resolved.appID, resolved.secrets, now.addingTimeInterval(Self.ttl))
        }
    }

    func removeAll() { entries.withLock { $0.removeAll() } }
}
