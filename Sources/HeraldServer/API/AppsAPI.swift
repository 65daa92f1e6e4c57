import Foundation
import HeraldHTTP
import HeraldStore

/// Apps, their keys and their APNs credentials. Admin keys do everything here; an app's master key may
/// read and change its own app, rotate its keys and upload its credentials.
struct AppsAPI {
    let env: ServiceEnvironment

    var routes: [Route] {
        [
            Route("POST", "/v1/apps", .admin, "Create an app; returns its master and client keys once.", handler: create),
            Route("GET", "/v1/apps", .admin, "List apps.", handler: list),
            Route("GET", "/v1/apps/{appId}", .appAdmin, "Get an app.", handler: get),
            Route("PATCH", "/v1/apps/{appId}", .appAdmin, "Change an app's name, topic, default time zone or rate limit.", handler: update),
            Route("DELETE", "/v1/apps/{appId}", .admin, "Delete an app and all its data.", handler: delete),
            Route("GET", "/v1/apps/{appId}/keys", .appAdmin, "List an app's keys (hints only, never secrets).", handler: listKeys),
            Route("POST", "/v1/apps/{appId}/keys/{scope}/rotate", .appAdmin, "Issue a new master or client key and revoke the old ones.", handler: rotate),
            Route("POST", "/v1/admin/keys/rotate", .admin, "Issue a new admin key and revoke the old ones.", handler: rotateAdmin),
            Route("PUT", "/v1/apps/{appId}/credentials/{environment}", .appAdmin, "Upload the APNs credential (.p8 token key or certificate) for sandbox or production.", handler: putCredential),
            Route("GET", "/v1/apps/{appId}/credentials", .appAdmin, "List credentials (metadata only).", handler: listCredentials),
            Route("DELETE", "/v1/apps/{appId}/credentials/{environment}", .appAdmin, "Delete a credential.", handler: deleteCredential),
        ]
    }

    static func json(_ app: AppRecord) -> JSON {
        [
            "id": .string(app.id), "name": .string(app.name), "topic": .optional(app.topic),
            "defaultTimeZone": .string(app.defaultTimeZone), "rateLimit": .optional(app.rateLimit),
            "paused": app.pausedReason.map { ["reason": .string($0), "since": ISO8601.json(app.pausedAt)] } ?? .null,
            "createdAt": ISO8601.json(app.createdAt), "updatedAt": ISO8601.json(app.updatedAt),
        ]
    }

    static func json(_ key: APIKeyRecord) -> JSON {
        ["id": .string(key.id), "scope": .string(key.scope.rawValue), "hint": .string(key.hint),
         "createdAt": ISO8601.json(key.createdAt), "revokedAt": ISO8601.json(key.revokedAt)]
    }

    func loadApp(_ ctx: RequestContext) async throws -> AppRecord {
        guard let app = try await env.store.app(id: ctx.parameter("appId")) else { throw APIError.notFound("App \(ctx.parameter("appId"))") }
        return app
    }

    func create(_ ctx: RequestContext) async throws -> HTTPResponse {
        let body = BodyReader(try ctx.jsonObject())
        try body.rejectUnknown(["name", "topic", "defaultTimeZone", "rateLimit"])
        let name = try body.requiredString("name", maxLength: 128)
        let topic = try body.string("topic", maxLength: 255)
        let zone = try Rules.timeZone(try body.string("defaultTimeZone", maxLength: 64), field: "defaultTimeZone") ?? "UTC"
        let rate = try body.int("rateLimit", range: 1...10_000_000)
        let app = AppRecord(id: env.newID("app_"), name: name, topic: topic, defaultTimeZone: zone, rateLimit: rate, createdAt: ctx.now, updatedAt: ctx.now)
        let master = env.authenticator.issue(scope: .master, appID: app.id, now: ctx.now)
        let client = env.authenticator.issue(scope: .client, appID: app.id, now: ctx.now)
        try await env.store.createApp(app, keys: [master.record, client.record])
        var out = Self.json(app)
        if case .object(var o) = out {
            o["keys"] = ["master": .string(master.secret), "client": .string(client.secret)]
            out = .object(o)
        }
        return .json(201, out, headers: ["location": "/v1/apps/\(app.id)"])
    }

    func list(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, ["apps": .array(try await env.store.apps().map(Self.json))])
    }

    func get(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, Self.json(try await loadApp(ctx)))
    }

    func update(_ ctx: RequestContext) async throws -> HTTPResponse {
        let body = BodyReader(try ctx.jsonObject())
        try body.rejectUnknown(["name", "topic", "defaultTimeZone", "rateLimit"])
        var app = try await loadApp(ctx)
        if let v = try body.string("name", maxLength: 128) { app.name = v }
        if let v = try body.nullableString("topic", maxLength: 255) { app.topic = v }
        if let v = try Rules.timeZone(try body.string("defaultTimeZone", maxLength: 64), field: "defaultTimeZone") { app.defaultTimeZone = v }
        if body.has("rateLimit") { app.rateLimit = try body.int("rateLimit", range: 1...10_000_000) }
        app.updatedAt = ctx.now
        try await env.store.updateApp(app)
        return .json(200, Self.json(app))
    }

    func delete(_ ctx: RequestContext) async throws -> HTTPResponse {
        guard try await env.store.deleteApp(id: ctx.parameter("appId")) else { throw APIError.notFound("App \(ctx.parameter("appId"))") }
        return .noContent
    }

    func listKeys(_ ctx: RequestContext) async throws -> HTTPResponse {
        let app = try await loadApp(ctx)
        return .json(200, ["keys": .array(try await env.store.keys(appID: app.id).map(Self.json))])
    }

    func rotate(_ ctx: RequestContext) async throws -> HTTPResponse {
        let app = try await loadApp(ctx)
        guard let scope = KeyScope(rawValue: ctx.parameter("scope")), scope != .admin else {
            throw APIError(status: 404, code: "not_found", message: "Key scope must be master or client.", field: "scope")
        }
        let issued = env.authenticator.issue(scope: scope, appID: app.id, now: ctx.now)
        try await env.store.rotateKey(issued.record, revokingScope: scope, at: ctx.now)
        var out = Self.json(issued.record)
        if case .object(var o) = out { o["key"] = .string(issued.secret); out = .object(o) }
        return .json(201, out)
    }

    func rotateAdmin(_ ctx: RequestContext) async throws -> HTTPResponse {
        let issued = env.authenticator.issue(scope: .admin, appID: nil, now: ctx.now)
        try await env.store.rotateKey(issued.record, revokingScope: .admin, at: ctx.now)
        var out = Self.json(issued.record)
        if case .object(var o) = out { o["key"] = .string(issued.secret); out = .object(o) }
        return .json(201, out)
    }

    func putCredential(_ ctx: RequestContext) async throws -> HTTPResponse {
        let app = try await loadApp(ctx)
        let environment = ctx.parameter("environment")
        guard environment == "sandbox" || environment == "production" else {
            throw APIError(status: 404, code: "not_found", message: "Environment must be sandbox or production.", field: "environment")
        }
        let body = BodyReader(try ctx.jsonObject())
        let credential = try CredentialInput.parse(body)
        let sealed = try env.crypto.seal(Array(credential.material.encoded.utf8))
        let record = CredentialRecord(appID: app.id, environment: environment, kind: credential.kind, sealed: sealed,
                                      keyID: credential.keyID, teamID: credential.teamID, topic: credential.topic,
                                      createdAt: ctx.now, updatedAt: ctx.now)
        try await env.store.saveCredential(record)
        return .json(200, Self.json(record))
    }

    static func json(_ c: CredentialRecord) -> JSON {
        ["environment": .string(c.environment), "type": .string(c.kind), "keyId": .optional(c.keyID), "teamId": .optional(c.teamID),
         "topic": .optional(c.topic), "createdAt": ISO8601.json(c.createdAt), "updatedAt": ISO8601.json(c.updatedAt)]
    }

    func listCredentials(_ ctx: RequestContext) async throws -> HTTPResponse {
        let app = try await loadApp(ctx)
        return .json(200, ["credentials": .array(try await env.store.credentials(appID: app.id).map(Self.json))])
    }

    func deleteCredential(_ ctx: RequestContext) async throws -> HTTPResponse {
        let app = try await loadApp(ctx)
        guard try await env.store.deleteCredential(appID: app.id, environment: ctx.parameter("environment")) else {
            throw APIError.notFound("Credential \(ctx.parameter("environment"))")
        }
        return .noContent
    }
}
