import Foundation
import HeraldHTTP
import HeraldStore

/// An app's webhooks over REST (`WebhooksService`): admin keys, or the app's master key.
struct WebhooksAPI {
    let webhooks: WebhooksService

    var routes: [Route] {
        [
            Route("POST", "/v1/apps/{appId}/webhooks", .appAdmin, "Create a webhook (url, events, description, enabled); returns its signing secret once.", handler: create),
            Route("GET", "/v1/apps/{appId}/webhooks", .appAdmin, "List the app's webhooks (never their secrets).", handler: list),
            Route("GET", "/v1/apps/{appId}/webhooks/{webhookId}", .appAdmin, "Get a webhook.", handler: get),
            Route("PATCH", "/v1/apps/{appId}/webhooks/{webhookId}", .appAdmin, "Change a webhook's url, events, description or enabled (enabling clears a failure run).", handler: update),
            Route("DELETE", "/v1/apps/{appId}/webhooks/{webhookId}", .appAdmin, "Delete a webhook with its undelivered events.", handler: delete),
            Route("POST", "/v1/apps/{appId}/webhooks/{webhookId}/rotate-secret", .appAdmin, "Issue a new signing secret (returned once); the old one stops at once.", handler: rotate),
            Route("GET", "/v1/apps/{appId}/webhooks/{webhookId}/deliveries", .appAdmin, "Deliveries, newest first, with each attempt's status, first bytes of the answer and latency.", handler: deliveries),
            Route("POST", "/v1/apps/{appId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", .appAdmin, "Send a delivery's events again now (same event ids).", handler: redeliver),
            Route("POST", "/v1/apps/{appId}/webhooks/{webhookId}/ping", .appAdmin, "Send a ping event now.", handler: ping),
        ]
    }

    static func json(_ w: WebhookRecord) -> JSON {
        [
            "id": .string(w.id), "appId": .string(w.appID), "url": .string(w.url), "events": .array(w.events.map(JSON.string)),
            "description": .optional(w.description), "enabled": .bool(w.enabled), "failureRun": .int(w.failureRun),
            "disabled": w.disabledReason.map { ["reason": .string($0), "since": ISO8601.json(w.disabledAt)] } ?? .null,
            "createdAt": ISO8601.json(w.createdAt), "updatedAt": ISO8601.json(w.updatedAt),
        ]
    }

    static func json(_ created: WebhooksService.Created) -> JSON {
        guard case .object(var o) = json(created.webhook) else { return .null }
        o["secret"] = .string(created.secret)
        return .object(o)
    }

    static func json(_ d: WebhookDeliveryRecord) -> JSON {
        [
            "id": .string(d.id), "webhookId": .string(d.webhookID), "kind": .string(d.kind.rawValue), "state": .string(d.state.rawValue),
            "sourceId": .optional(d.sourceID), "eventCount": .int(d.eventCount), "createdAt": ISO8601.json(d.createdAt),
            "nextAttemptAt": ISO8601.json(d.nextAttemptAt), "finishedAt": ISO8601.json(d.finishedAt),
            "attempts": .array(d.attempts.map { a in
                ["number": .int(a.number), "at": ISO8601.json(a.at), "status": .optional(a.status), "body": .optional(a.body),
                 "error": .optional(a.error), "latencyMs": .int(a.latencyMilliseconds)]
            }),
        ]
    }

    func create(_ ctx: RequestContext) async throws -> HTTPResponse {
        let input = try WebhookInput.parse(BodyReader(try ctx.jsonObject()), creating: true)
        let created = try await webhooks.create(appID: ctx.parameter("appId"), input)
        return .json(201, Self.json(created), headers: ["location": "/v1/apps/\(created.webhook.appID)/webhooks/\(created.webhook.id)"])
    }

    func list(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, ["webhooks": .array(try await webhooks.list(appID: ctx.parameter("appId")).map(Self.json))])
    }

    func get(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, Self.json(try await webhooks.get(appID: ctx.parameter("appId"), id: ctx.parameter("webhookId"))))
    }

    func update(_ ctx: RequestContext) async throws -> HTTPResponse {
        let input = try WebhookInput.parse(BodyReader(try ctx.jsonObject()), creating: false)
        return .json(200, Self.json(try await webhooks.update(appID: ctx.parameter("appId"), id: ctx.parameter("webhookId"), input)))
    }

    func delete(_ ctx: RequestContext) async throws -> HTTPResponse {
        try await webhooks.delete(appID: ctx.parameter("appId"), id: ctx.parameter("webhookId"))
        return .noContent
    }

    func rotate(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, Self.json(try await webhooks.rotateSecret(appID: ctx.parameter("appId"), id: ctx.parameter("webhookId"))))
    }

    func deliveries(_ ctx: RequestContext) async throws -> HTTPResponse {
        let page = try await webhooks.deliveries(appID: ctx.parameter("appId"), id: ctx.parameter("webhookId"), before: ctx.query("cursor"),
                                                 limit: try ctx.intQuery("limit", default: 50, range: 1...200))
        return .json(200, ["deliveries": .array(page.items.map(Self.json)), "nextCursor": .optional(page.next)])
    }

    func redeliver(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(202, Self.json(try await webhooks.redeliver(appID: ctx.parameter("appId"), id: ctx.parameter("webhookId"),
                                                          deliveryID: ctx.parameter("deliveryId"))))
    }

    func ping(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(202, Self.json(try await webhooks.ping(appID: ctx.parameter("appId"), id: ctx.parameter("webhookId"))))
    }
}
