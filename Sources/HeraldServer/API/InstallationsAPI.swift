import Foundation
import HeraldHTTP
import HeraldStore

/// The device registry. Client keys (shipped inside the app) may create, update and delete an
/// installation they name by id, change its tags, and report opens; everything else needs the master key.
struct InstallationsAPI {
    let env: ServiceEnvironment

    var routes: [Route] {
        [
            Route("POST", "/v1/installations", .client, "Create or update an installation (matched by installationId, then deviceToken).", handler: upsert),
            Route("GET", "/v1/installations", .master, "Query installations by tag, alias, userId, deviceToken, active, updatedSince; cursor pagination.", handler: query),
            Route("GET", "/v1/installations/{id}", .master, "Get an installation by id or installationId.", handler: get),
            Route("PATCH", "/v1/installations/{id}", .client, "Update fields of an installation.", handler: patch),
            Route("DELETE", "/v1/installations/{id}", .client, "Delete an installation.", handler: delete),
            Route("POST", "/v1/installations/{id}/tags", .client, "Add and remove tags: {\"add\":[],\"remove\":[]}.", handler: tags),
            Route("GET", "/v1/tags", .master, "List tags with installation counts.", handler: listTags),
            Route("DELETE", "/v1/tags/{tag}", .master, "Remove a tag from every installation.", handler: removeTag),
            Route("GET", "/v1/aliases", .master, "List aliases with installation counts.", handler: listAliases),
            Route("POST", "/v1/opens", .client, "Report that a push was opened: {\"pushId\",\"installationId\"}, or the APNs simulator's opened report. Idempotent.", handler: open),
        ]
    }

    func upsert(_ ctx: RequestContext) async throws -> HTTPResponse {
        let appID = try ctx.appID
        let draft = try InstallationInput.parse(BodyReader(try ctx.jsonObject()))
        guard draft.installationID != nil || draft.deviceToken != nil else {
            throw APIError(status: 422, code: "missing_field", message: "Send installationId (a UUID the app keeps) and/or deviceToken.", field: "installationId")
        }
        let (record, created) = try await env.store.upsertInstallation(appID: appID, draft: draft, match: .installationIDOrToken,
                                                                       newID: env.newID(), now: ctx.now)
        return .json(created ? 201 : 200, InstallationInput.json(record), headers: ["location": "/v1/installations/\(record.id)"])
    }

    func get(_ ctx: RequestContext) async throws -> HTTPResponse {
        guard let r = try await env.store.installation(appID: try ctx.appID, id: ctx.parameter("id")) else {
            throw APIError.notFound("Installation \(ctx.parameter("id"))")
        }
        return .json(200, InstallationInput.json(r))
    }

    func patch(_ ctx: RequestContext) async throws -> HTTPResponse {
        let draft = try InstallationInput.parse(BodyReader(try ctx.jsonObject()))
        do {
            let (record, _) = try await env.store.upsertInstallation(appID: try ctx.appID, draft: draft, match: .existing(ctx.parameter("id")),
                                                                     newID: env.newID(), now: ctx.now)
            return .json(200, InstallationInput.json(record))
        } catch StoreError.notFound {
            throw APIError.notFound("Installation \(ctx.parameter("id"))")
        }
    }

    func delete(_ ctx: RequestContext) async throws -> HTTPResponse {
        guard try await env.store.deleteInstallation(appID: try ctx.appID, id: ctx.parameter("id")) else {
            throw APIError.notFound("Installation \(ctx.parameter("id"))")
        }
        return .noContent
    }

    func tags(_ ctx: RequestContext) async throws -> HTTPResponse {
        let body = BodyReader(try ctx.jsonObject())
        try body.rejectUnknown(["add", "remove"])
        let add = try Rules.tags(try body.stringArray("add", maxCount: 1000, maxLength: 64), field: "add") ?? []
        let remove = try Rules.tags(try body.stringArray("remove", maxCount: 1000, maxLength: 64), field: "remove") ?? []
        guard !add.isEmpty || !remove.isEmpty else { throw APIError(status: 422, code: "missing_field", message: "Send add and/or remove.", field: "add") }
        do {
            let r = try await env.store.updateTags(appID: try ctx.appID, id: ctx.parameter("id"), add: add, remove: remove, now: ctx.now)
            return .json(200, InstallationInput.json(r))
        } catch StoreError.notFound {
            throw APIError.notFound("Installation \(ctx.parameter("id"))")
        }
    }

    func query(_ ctx: RequestContext) async throws -> HTTPResponse {
        var q = InstallationQuery()
        q.tag = ctx.query("tag")
        q.alias = ctx.query("alias")
        q.userID = ctx.query("userId")
        q.deviceToken = try ctx.query("deviceToken").map { try Rules.deviceToken($0, field: "deviceToken") }
        if let a = ctx.query("active") {
            guard let b = Bool(a) else { throw APIError(status: 400, code: "invalid_query", message: "active must be true or false.", field: "active") }
            q.active = b
        }
        if let s = ctx.query("updatedSince") {
            guard let d = ISO8601.parse(s) else { throw APIError(status: 400, code: "invalid_query", message: "updatedSince must be an ISO 8601 time.", field: "updatedSince") }
            q.updatedSince = d
        }
        q.afterSeq = try Self.cursor(ctx)
        q.limit = try ctx.intQuery("limit", default: 100, range: 1...1000)
        let page = try await env.store.installations(appID: try ctx.appID, query: q)
        let next: JSON = page.count == q.limit ? .string(String(page.last!.seq)) : .null
        return .json(200, ["installations": .array(page.map(InstallationInput.json)), "nextCursor": next])
    }

    static func cursor(_ ctx: RequestContext) throws -> Int64 {
        guard let c = ctx.query("cursor") else { return 0 }
        guard let n = Int64(c), n >= 0 else { throw APIError(status: 400, code: "invalid_query", message: "cursor must be a nextCursor value from a previous page.", field: "cursor") }
        return n
    }

    func listTags(_ ctx: RequestContext) async throws -> HTTPResponse {
        let limit = try ctx.intQuery("limit", default: 100, range: 1...1000)
        let page = try await env.store.tags(appID: try ctx.appID, after: ctx.query("cursor"), limit: limit)
        return .json(200, ["tags": .array(page.map { ["tag": .string($0.tag), "count": .int($0.count)] }),
                           "nextCursor": page.count == limit ? .string(page.last!.tag) : .null])
    }

    func listAliases(_ ctx: RequestContext) async throws -> HTTPResponse {
        let limit = try ctx.intQuery("limit", default: 100, range: 1...1000)
        let page = try await env.store.aliases(appID: try ctx.appID, after: ctx.query("cursor"), limit: limit)
        return .json(200, ["aliases": .array(page.map { ["alias": .string($0.alias), "count": .int($0.count)] }),
                           "nextCursor": page.count == limit ? .string(page.last!.alias) : .null])
    }

    func removeTag(_ ctx: RequestContext) async throws -> HTTPResponse {
        let n = try await env.store.removeTagEverywhere(appID: try ctx.appID, tag: ctx.parameter("tag"))
        return .json(200, ["tag": .string(ctx.parameter("tag")), "removed": .int(n)])
    }

    /// `{pushId, installationId}` from the SDK, or the APNs simulator's opened report (`herald sim
    /// --opened-callback`), which names the device token and carries the push id in the payload's custom keys.
    func open(_ ctx: RequestContext) async throws -> HTTPResponse {
        let body = BodyReader(try ctx.jsonObject())
        let appID = try ctx.appID
        if body.has("apnsId") || body.has("custom") {
            try body.rejectUnknown(["deviceId", "bundleId", "deviceToken", "apnsId", "openedAt", "openedAtMs", "custom"])
            guard let pushID = body.object["custom"]?["herald"]?["pushId"]?.stringValue else {
                throw APIError(status: 422, code: "missing_field",
                               message: "custom.herald.pushId is missing: the opened notification was not sent by Herald.", field: "custom.herald.pushId")
            }
            let token = try Rules.deviceToken(try body.requiredString("deviceToken", maxLength: 400), field: "deviceToken")
            let first = try await Self.recordOpen(store: env.store, appID: appID, pushID: pushID, deviceToken: token, now: ctx.now)
            return .json(202, ["recorded": .bool(first)])
        }
        try body.rejectUnknown(["pushId", "installationId"])
        let pushID = try body.requiredString("pushId", maxLength: 64)
        let installationID = try body.requiredString("installationId", maxLength: 128)
        do {
            let first = try await env.store.recordOpen(appID: appID, pushID: pushID, installationID: installationID, now: ctx.now)
            return .json(202, ["recorded": .bool(first)])
        } catch StoreError.notFound {
            throw APIError.notFound("Push \(pushID) or installation \(installationID)")
        }
    }

    /// Records an open reported by device token (the simulator knows tokens, not installations): the app's
    /// installation holding the token. Returns whether it was the first open of the push there.
    static func recordOpen(store: any HeraldStorage, appID: String, pushID: String, deviceToken: String, now: Date) async throws -> Bool {
        let matches = try await store.installations(appID: appID, query: InstallationQuery(deviceToken: deviceToken, limit: 1))
        guard let installation = matches.first else { throw APIError.notFound("Installation with device token \(deviceToken)") }
        do {
            return try await store.recordOpen(appID: appID, pushID: pushID, installationID: installation.id, now: now)
        } catch StoreError.notFound {
            throw APIError.notFound("Push \(pushID)")
        }
    }
}
