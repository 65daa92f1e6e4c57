import Foundation
import HeraldHTTP
import HeraldStore

/// Apps, their keys and their APNs credentials over REST (`AppsService`, `CredentialsService`). Admin keys
/// do everything here; an app's master key may read and change its own app, rotate its keys and upload its
/// credentials (`Access.appAdmin`).
struct AppsAPI {
    let apps: AppsService
    let credentials: CredentialsService
    let webhooks: WebhooksService

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

    func create(_ ctx: RequestContext) async throws -> HTTPResponse {
        let created = try await apps.create(try AppInput.parse(BodyReader(try ctx.jsonObject())))
        var out = Self.json(created.app)
        if case .object(var o) = out {
            o["keys"] = ["master": .string(created.masterKey), "client": .string(created.clientKey)]
            out = .object(o)
        }
        return .json(201, out, headers: ["location": "/v1/apps/\(created.app.id)"])
    }

    func list(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, ["apps": .array(try await apps.list().map(Self.json))])
    }

    func get(_ ctx: RequestContext) async throws -> HTTPResponse {
        let app = try await apps.get(id: ctx.parameter("appId"))
        guard case .object(var o) = Self.json(app) else { return .json(200, Self.json(app)) }
        // A webhook disabled after failing is part of the app's health, as a paused credential is.
        o["disabledWebhooks"] = .array(try await webhooks.list(appID: app.id).filter { $0.disabledReason != nil }.map(WebhooksAPI.json))
        return .json(200, .object(o))
    }

    func update(_ ctx: RequestContext) async throws -> HTTPResponse {
        let changes = try AppChanges.parse(BodyReader(try ctx.jsonObject()))
        return .json(200, Self.json(try await apps.update(id: ctx.parameter("appId"), changes)))
    }

    func delete(_ ctx: RequestContext) async throws -> HTTPResponse {
        try await apps.delete(id: ctx.parameter("appId"))
        return .noContent
    }

    func listKeys(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, ["keys": .array(try await apps.keys(appID: ctx.parameter("appId")).map(Self.json))])
    }

    func rotate(_ ctx: RequestContext) async throws -> HTTPResponse {
        guard let scope = KeyScope(rawValue: ctx.parameter("scope")) else { throw AppsService.unknownScope }
        return Self.created(try await apps.rotateKey(appID: ctx.parameter("appId"), scope: scope))
    }

    func rotateAdmin(_ ctx: RequestContext) async throws -> HTTPResponse {
        Self.created(try await apps.rotateAdminKey())
    }

    static func created(_ issued: AppsService.IssuedKey) -> HTTPResponse {
        var out = json(issued.record)
        if case .object(var o) = out { o["key"] = .string(issued.secret); out = .object(o) }
        return .json(201, out)
    }

    func putCredential(_ ctx: RequestContext) async throws -> HTTPResponse {
        let input = try CredentialInput.parse(BodyReader(try ctx.jsonObject()))
        return .json(200, Self.json(try await credentials.put(appID: ctx.parameter("appId"), environment: ctx.parameter("environment"), input)))
    }

    static func json(_ c: CredentialRecord) -> JSON {
        ["environment": .string(c.environment), "type": .string(c.kind), "keyId": .optional(c.keyID), "teamId": .optional(c.teamID),
         "topic": .optional(c.topic), "createdAt": ISO8601.json(c.createdAt), "updatedAt": ISO8601.json(c.updatedAt)]
    }

    func listCredentials(_ ctx: RequestContext) async throws -> HTTPResponse {
        let listed = try await credentials.listWithOutcomes(appID: ctx.parameter("appId"))
        return .json(200, ["credentials": .array(listed.map { Self.json($0.credential, outcome: $0.outcome) })])
    }

    /// A listed credential also says how APNs last answered it: `state` is `accepted` or `rejected` (whichever
    /// came last) or `unused` (no answer since it was uploaded).
    static func json(_ c: CredentialRecord, outcome: CredentialOutcomeRecord?) -> JSON {
        guard case .object(var o) = json(c) else { return json(c) }
        let accepted = outcome?.acceptedAt, rejected = outcome?.rejectedAt
        let state = switch (accepted, rejected) {
        case (nil, nil): "unused"
        case let (a?, r?): a > r ? "accepted" : "rejected"
        case (_?, nil): "accepted"
        case (nil, _?): "rejected"
        }
        o["state"] = .string(state)
        o["lastAcceptedAt"] = ISO8601.json(accepted)
        o["lastRejectedAt"] = ISO8601.json(rejected)
        o["lastRejectionReason"] = .optional(outcome?.rejectedReason)
        return .object(o)
    }

    func deleteCredential(_ ctx: RequestContext) async throws -> HTTPResponse {
        try await credentials.delete(appID: ctx.parameter("appId"), environment: ctx.parameter("environment"))
        return .noContent
    }
}
