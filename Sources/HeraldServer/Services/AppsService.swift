import HeraldStore

/// Apps and their API keys. A key's secret exists only in what `create` and the rotations return; the
/// store keeps its hash.
struct AppsService: Sendable {
    let env: ServiceEnvironment

    struct Created: Sendable {
        var app: AppRecord
        var masterKey: String
        var clientKey: String
    }

    struct IssuedKey: Sendable {
        var record: APIKeyRecord
        var secret: String
    }

    /// The app and its first master and client keys, stored together.
    func create(_ input: AppInput) async throws -> Created {
        let now = env.clock.now()
        let app = AppRecord(id: env.newID("app_"), name: input.name, topic: input.topic, defaultTimeZone: input.defaultTimeZone,
                            rateLimit: input.rateLimit, createdAt: now, updatedAt: now)
        let master = env.authenticator.issue(scope: .master, appID: app.id, now: now)
        let client = env.authenticator.issue(scope: .client, appID: app.id, now: now)
        try await env.store.createApp(app, keys: [master.record, client.record])
        return Created(app: app, masterKey: master.secret, clientKey: client.secret)
    }

    func list() async throws -> [AppRecord] { try await env.store.apps() }

    func get(id: String) async throws -> AppRecord {
        guard let app = try await env.store.app(id: id) else { throw Self.notFound(id) }
        return app
    }

    func update(id: String, _ changes: AppChanges) async throws -> AppRecord {
        var app = try await get(id: id)
        if let v = changes.name { app.name = v }
        if let v = changes.topic { app.topic = v }
        if let v = changes.defaultTimeZone { app.defaultTimeZone = v }
        if let v = changes.rateLimit { app.rateLimit = v }
        app.updatedAt = env.clock.now()
        defer { env.apps.forget(id: id) }
        try await env.store.updateApp(app)
        return app
    }

    /// The app and everything it owns; its keys stop working at once on this node.
    func delete(id: String) async throws {
        defer {
            env.authenticator.forgetVerdicts()
            env.apps.forget(id: id)
        }
        guard try await env.store.deleteApp(id: id) else { throw Self.notFound(id) }
    }

    /// Active and revoked, without secrets.
    func keys(appID: String) async throws -> [APIKeyRecord] {
        try await env.store.keys(appID: try await get(id: appID).id)
    }

    /// Issues a new master or client key and revokes the app's previous ones of that scope.
    func rotateKey(appID: String, scope: KeyScope) async throws -> IssuedKey {
        let app = try await get(id: appID)
        guard scope != .admin else { throw Self.unknownScope }
        return try await rotate(scope, appID: app.id)
    }

    /// Issues a new admin key and revokes the previous ones.
    func rotateAdminKey() async throws -> IssuedKey { try await rotate(.admin, appID: nil) }

    private func rotate(_ scope: KeyScope, appID: String?) async throws -> IssuedKey {
        let now = env.clock.now()
        let issued = env.authenticator.issue(scope: scope, appID: appID, now: now)
        // Also when the store failed: it may have committed before the failure reached us.
        defer { env.authenticator.forgetVerdicts() }
        try await env.store.rotateKey(issued.record, revokingScope: scope, at: now)
        return IssuedKey(record: issued.record, secret: issued.secret)
    }

    /// An app key's scope is part of its address (`keys/{scope}`): one that is not master or client names nothing.
    static let unknownScope = ServiceError(.notFound, code: "not_found", message: "Key scope must be master or client.", field: "scope")

    static func notFound(_ id: String) -> ServiceError { .notFound("App \(id)") }
}
