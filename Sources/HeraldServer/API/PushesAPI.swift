import APNSCore
import Foundation
import HeraldHTTP
import HeraldStore

/// Sending over REST (`PushesService`): accept (stored before the answer), dry run, idempotency, status,
/// per-device outcomes, cancel.
struct PushesAPI {
    let pushes: PushesService

    var routes: [Route] {
        [
            Route("POST", "/v1/pushes", .master, "Send a push: target, content, options, idempotencyKey, dryRun. Answers at once with the push id.", handler: create),
            Route("GET", "/v1/pushes", .master, "List pushes, newest first; ?status=scheduled lists pending schedules.", handler: list),
            Route("GET", "/v1/pushes/{id}", .master, "Push status and counts; ?include=deliveries (&state=failed) for per-device outcomes.", handler: get),
            Route("POST", "/v1/pushes/{id}/cancel", .master, "Cancel a scheduled or running push; deliveries not yet sent are dropped.", handler: cancel),
        ]
    }

    func create(_ ctx: RequestContext) async throws -> HTTPResponse {
        let appID = try ctx.appID
        var document = try ctx.jsonObject()
        if let header = ctx.request.headers["idempotency-key"] {
            if let body = document["idempotencyKey"]?.stringValue, body != header {
                throw ServiceError.invalid("idempotencyKey", "The Idempotency-Key header and the idempotencyKey field differ; send one.")
            }
            document["idempotencyKey"] = .string(header)
        }
        let input = try PushInput(document, now: ctx.now)
        if input.spec.dryRun {
            let r = try await pushes.dryRun(appID: appID, input)
            return .json(200, [
                "dryRun": true, "audience": .int(r.audience), "unresolved": .array(r.unresolved.map(JSON.string)),
                "environments": .object(r.environments.mapValues { .int($0) }),
                "pushType": .string(r.pushType.rawValue), "priority": .int(r.priority), "payloadBytes": .int(r.payloadBytes),
                "payloadLimit": .int(r.pushType.payloadSizeLimit), "headers": .object(r.headers.mapValues(JSON.string)),
                "variants": .array(r.variants.map { v in
                    ["locale": .string(v.locale), "bytes": .int(v.payload.count), "payload": (try? JSON(parsing: v.payload)) ?? .null]
                }),
            ])
        }
        let accepted = try await pushes.create(appID: appID, input)
        var headers = HTTPHeaders()
        headers.set("location", "/v1/pushes/\(accepted.push.push.id)")
        if !accepted.created { headers.set("idempotent-replay", "true") }
        var body = Self.json(accepted.push)
        body["unresolved"] = .array(accepted.unresolved.map(JSON.string))
        return .json(accepted.created ? 202 : 200, .object(body), headers: headers)
    }

    static func json(_ r: PushesService.Report) -> [String: JSON] {
        let p = r.push
        var out: [String: JSON] = [
            "id": .string(p.id), "status": .string(p.status.rawValue), "idempotencyKey": .optional(p.idempotencyKey),
            "createdAt": ISO8601.json(p.createdAt), "updatedAt": ISO8601.json(p.updatedAt), "sendAt": ISO8601.json(p.sendAt),
            "expiresAt": ISO8601.json(p.expiresAt), "finishedAt": ISO8601.json(p.finishedAt), "fanOutComplete": .bool(p.fanoutDone),
            "counts": ["targeted": .int(p.counts.targeted), "sent": .int(p.counts.sent), "failed": .int(p.counts.failed),
                       "retired": .int(p.counts.retired), "opened": .int(p.counts.opened), "cancelled": .int(p.counts.cancelled),
                       "pending": .int(r.pending)],
            "failures": .object(r.failures.mapValues { .int($0) }),
            "error": p.errorCode.map { ["code": .string($0), "message": .optional(p.errorMessage)] } ?? .null,
            "paused": r.paused.map {
                ["reason": .string($0.reason), "since": ISO8601.json($0.since),
                 "message": "APNs rejected the app's credential; upload a working one to resume."]
            } ?? .null,
        ]
        if let page = r.deliveries {
            out["deliveries"] = .array(page.items.map { d in
                ["installationId": .string(d.record.installationID), "state": .string(d.record.state.name), "attempts": .int(d.record.attempts),
                 "apnsId": .optional(d.apnsID?.lowercasedString), "status": .optional(d.record.status), "reason": .optional(d.record.reason),
                 "badge": .optional(d.record.badge), "updatedAt": ISO8601.json(d.record.updatedAt)]
            })
            out["nextCursor"] = .optional(page.next.map(String.init))
        }
        return out
    }

    func get(_ ctx: RequestContext) async throws -> HTTPResponse {
        var deliveries: PushesService.DeliveryPage?
        if ctx.query("include") == "deliveries" {
            var page = PushesService.DeliveryPage(after: try InstallationsAPI.cursor(ctx), limit: try ctx.intQuery("limit", default: 100, range: 1...1000))
            if let name = ctx.query("state") {
                guard let s = DeliveryState.allCases.first(where: { $0.name == name }) else {
                    throw APIError.invalidQuery("state", "state must be one of \(DeliveryState.allCases.map(\.name).joined(separator: ", ")).")
                }
                page.state = s
            }
            deliveries = page
        }
        return .json(200, .object(Self.json(try await pushes.get(appID: try ctx.appID, id: ctx.parameter("id"), deliveries: deliveries))))
    }

    func list(_ ctx: RequestContext) async throws -> HTTPResponse {
        let limit = try ctx.intQuery("limit", default: 50, range: 1...500)
        let before = try ctx.query("before").map { text -> Date in
            guard let d = ISO8601.parse(text) else { throw APIError.invalidQuery("before", "before must be an ISO 8601 time.") }
            return d
        }
        let status = try ctx.query("status").map { name -> PushStatus in
            guard let s = PushStatus(rawValue: name) else {
                throw APIError.invalidQuery("status", "status must be one of \(PushStatus.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            return s
        }
        let reports = try await pushes.list(appID: try ctx.appID, status: status, before: before, limit: limit)
        return .json(200, ["pushes": .array(reports.map { .object(Self.json($0)) })])
    }

    func cancel(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, .object(Self.json(try await pushes.cancel(appID: try ctx.appID, id: ctx.parameter("id")))))
    }
}
