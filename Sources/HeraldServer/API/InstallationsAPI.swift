import Foundation
import HeraldHTTP
import HeraldStore

/// The device registry over REST (`InstallationsService`, `OpensService`). Client keys (shipped inside the
/// app) may create, update and delete an installation they name by id, change its tags, and report opens;
/// everything else needs the master key.
struct InstallationsAPI {
    let installations: InstallationsService
    let opens: OpensService

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
        let draft = try InstallationInput.parse(BodyReader(try ctx.jsonObject()))
        let (record, created) = try await installations.register(appID: try ctx.appID, draft)
        return .json(created ? 201 : 200, bytes: InstallationInput.jsonBytes(record), headers: ["location": "/v1/installations/\(record.id)"])
    }

    func get(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, bytes: InstallationInput.jsonBytes(try await installations.get(appID: try ctx.appID, id: ctx.parameter("id"))))
    }

    func patch(_ ctx: RequestContext) async throws -> HTTPResponse {
        let draft = try InstallationInput.parse(BodyReader(try ctx.jsonObject()))
        return .json(200, bytes: InstallationInput.jsonBytes(try await installations.update(appID: try ctx.appID, id: ctx.parameter("id"), draft)))
    }

    func delete(_ ctx: RequestContext) async throws -> HTTPResponse {
        try await installations.delete(appID: try ctx.appID, id: ctx.parameter("id"))
        return .noContent
    }

    func tags(_ ctx: RequestContext) async throws -> HTTPResponse {
        let change = try TagChange.parse(BodyReader(try ctx.jsonObject()))
        return .json(200, bytes: InstallationInput.jsonBytes(try await installations.changeTags(appID: try ctx.appID, id: ctx.parameter("id"), change)))
    }

    func query(_ ctx: RequestContext) async throws -> HTTPResponse {
        var q = InstallationQuery()
        q.tag = ctx.query("tag")
        q.alias = ctx.query("alias")
        q.userID = ctx.query("userId")
        q.deviceToken = ctx.query("deviceToken")
        if let a = ctx.query("active") {
            guard let b = Bool(a) else { throw APIError.invalidQuery("active", "active must be true or false.") }
            q.active = b
        }
        if let s = ctx.query("updatedSince") {
            guard let d = ISO8601.parse(s) else { throw APIError.invalidQuery("updatedSince", "updatedSince must be an ISO 8601 time.") }
            q.updatedSince = d
        }
        q.afterSeq = try Self.cursor(ctx)
        q.limit = try ctx.intQuery("limit", default: 100, range: 1...1000)
        let page = try await installations.query(appID: try ctx.appID, q)
        return .json(200, bytes: InstallationInput.pageBytes(page.items, next: page.next.map(String.init)))
    }

    static func cursor(_ ctx: RequestContext) throws -> Int64 {
        guard let c = ctx.query("cursor") else { return 0 }
        guard let n = Int64(c), n >= 0 else { throw APIError.invalidQuery("cursor", "cursor must be a nextCursor value from a previous page.") }
        return n
    }

    func listTags(_ ctx: RequestContext) async throws -> HTTPResponse {
        let page = try await installations.tags(appID: try ctx.appID, after: ctx.query("cursor"), limit: try ctx.intQuery("limit", default: 100, range: 1...1000))
        return .json(200, ["tags": .array(page.items.map { ["tag": .string($0.tag), "count": .int($0.count)] }), "nextCursor": .optional(page.next)])
    }

    func listAliases(_ ctx: RequestContext) async throws -> HTTPResponse {
        let page = try await installations.aliases(appID: try ctx.appID, after: ctx.query("cursor"), limit: try ctx.intQuery("limit", default: 100, range: 1...1000))
        return .json(200, ["aliases": .array(page.items.map { ["alias": .string($0.alias), "count": .int($0.count)] }), "nextCursor": .optional(page.next)])
    }

    func removeTag(_ ctx: RequestContext) async throws -> HTTPResponse {
        let n = try await installations.removeTagEverywhere(appID: try ctx.appID, tag: ctx.parameter("tag"))
        return .json(200, ["tag": .string(ctx.parameter("tag")), "removed": .int(n)])
    }

    /// `{pushId, installationId}` from the SDK, or the APNs simulator's opened report (`herald sim
    /// --opened-callback`), which names the device token and carries the push id in the payload's custom keys.
    func open(_ ctx: RequestContext) async throws -> HTTPResponse {
        let body = BodyReader(try ctx.jsonObject())
        let report: OpensService.Report
        if body.has("apnsId") || body.has("custom") {
            try body.rejectUnknown(["deviceId", "bundleId", "deviceToken", "apnsId", "openedAt", "openedAtMs", "custom"])
            guard let pushID = body.object["custom"]?["herald"]?["pushId"]?.stringValue else {
                throw ServiceError.missing("custom.herald.pushId", "custom.herald.pushId is missing: the opened notification was not sent by Herald.")
            }
            report = .deviceToken(pushID: pushID, deviceToken: try body.requiredString("deviceToken", maxLength: 400))
        } else {
            try body.rejectUnknown(["pushId", "installationId"])
            report = .installation(pushID: try body.requiredString("pushId", maxLength: 64),
                                   installationID: try body.requiredString("installationId", maxLength: 128))
        }
        return .json(202, ["recorded": .bool(try await opens.record(appID: try ctx.appID, report))])
    }
}
