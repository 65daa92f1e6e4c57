import Foundation
import Synchronization
import HeraldStore

/// An app's identity on a hosted push service it moves from (LeanCloud: App ID, App Key, Master Key; JPush:
/// App Key, Master Secret), so that service's SDKs keep working against Herald. The secrets verify signatures
/// (LeanCloud's `X-LC-Sign` is an MD5 over the key), so they are sealed, not hashed; only hints are shown.
struct CompatIdentitiesService: Sendable {
    let env: ServiceEnvironment
    /// Resolved identities, so a signed request costs no store read and no unsealing; cleared by put/delete here
    /// and aged out after `CompatIdentityCache.lifetime` for changes made by another server on the same database.
    let cache = CompatIdentityCache()

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
            cache.removeAll()
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
        if let cached = cache.get(provider: provider, publicID: publicID, now: now) { return cached.identity.map { ($0.appID, $0.secrets) } }
        let resolved = try await resolveStored(provider: provider, publicID: publicID)
        cache.put(provider: provider, publicID: publicID, resolved.map { CompatIdentityCache.Identity(appID: $0.appID, secrets: $0.secrets) }, now: now)
        return resolved
    }

    private func resolveStored(provider: String, publicID: String) async throws -> (appID: String, secrets: [String: String])? {
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
