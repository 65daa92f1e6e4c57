import HeraldStore

/// An app's APNs credentials, one per environment (sandbox, production). The material is sealed before it
/// is stored and never returned; only metadata is.
struct CredentialsService: Sendable {
    let env: ServiceEnvironment

    static let environments = ["sandbox", "production"]

    /// Stores (or replaces) the credential the app uses in `environment`.
    func put(appID: String, environment: String, _ input: CredentialInput) async throws -> CredentialRecord {
        let app = try await AppsService(env: env).get(id: appID)
        guard Self.environments.contains(environment) else {
            throw ServiceError(.notFound, code: "not_found", message: "Environment must be sandbox or production.", field: "environment")
        }
        let now = env.clock.now()
        let sealed = try env.crypto.seal(Array(input.material.encoded.utf8))
        let record = CredentialRecord(appID: app.id, environment: environment, kind: input.kind, sealed: sealed,
                                      keyID: input.keyID, teamID: input.teamID, topic: input.topic, createdAt: now, updatedAt: now)
        // Saving a credential lifts the app's pause.
        defer { env.apps.forget(id: record.appID) }
        try await env.store.saveCredential(record)
        return record
    }

    func list(appID: String) async throws -> [CredentialRecord] {
        try await env.store.credentials(appID: try await AppsService(env: env).get(id: appID).id)
    }

    /// The app's credentials, each with APNs' last answers to it (stored, updated with this node's not yet
    /// flushed). Answers from before a credential was uploaded were to the one it replaced and are left out.
    func listWithOutcomes(appID: String) async throws -> [(credential: CredentialRecord, outcome: CredentialOutcomeRecord?)] {
        let credentials = try await list(appID: appID)
        guard let app = credentials.first?.appID else { return [] }
        let outcomes = env.credentialOutcomes.merged(appID: app, stored: try await env.store.credentialOutcomes(appID: app))
        return credentials.map { c in
            guard var o = outcomes[c.environment] else { return (c, nil) }
            if let a = o.acceptedAt, a < c.updatedAt { o.acceptedAt = nil }
            if let r = o.rejectedAt, r < c.updatedAt { o.rejectedAt = nil; o.rejectedReason = nil }
            return (c, o.acceptedAt == nil && o.rejectedAt == nil ? nil : o)
        }
    }

    func delete(appID: String, environment: String) async throws {
        let app = try await AppsService(env: env).get(id: appID)
        defer { env.apps.forget(id: app.id) }
        guard try await env.store.deleteCredential(appID: app.id, environment: environment) else {
            throw ServiceError.notFound("Credential \(environment)")
        }
    }
}
