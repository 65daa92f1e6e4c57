import Foundation
import HeraldHTTP
import HeraldStore

/// Sending: accept (stored before the answer), dry run, idempotency, status, per-device outcomes, cancel.
struct PushesAPI {
    let env: ServiceEnvironment
    let engine: DeliveryEngine

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
        var object = try ctx.jsonObject()
        if let header = ctx.request.headers["idempotency-key"] {
            if let body = object["idempotencyKey"]?.stringValue, body != header {
                throw APIError.invalid("idempotencyKey", "The Idempotency-Key header and the idempotencyKey field differ; send one.")
            }
            object["idempotencyKey"] = .string(header)
        }
        let spec = try PushSpec.parse(object, now: ctx.now)
        guard let app = try await env.store.app(id: appID) else { throw APIError.notFound("App \(appID)") }
        guard spec.topic != nil || app.topic != nil else {
            throw APIError(status: 422, code: "missing_topic", message: "No apns-topic: set the app's topic (PATCH /v1/apps/{appId}) or options.topic.", field: "options.topic")
        }
        let id = env.newID()
        let size = spec.content.largestPayloadSize(pushID: id)
        let limit = spec.pushType.payloadSizeLimit
        if size > limit {
            throw APIError(status: 422, code: "payload_too_large", message: "The payload is \(size) bytes (largest variant); APNs accepts at most \(limit).", field: "content")
        }
        if spec.dryRun { return try await dryRun(spec, app: app, payloadBytes: size, now: ctx.now) }

        let status: PushStatus = (spec.sendAt.map { $0 > ctx.now } ?? false) ? .scheduled : .queued
        // Store the request as parsed (with the idempotency key resolved) so the engine re-reads exactly this.
        let record = PushRecord(id: id, appID: appID, idempotencyKey: spec.idempotencyKey, request: JSON.object(object).encoded,
                                status: status, createdAt: ctx.now, sendAt: spec.sendAt, expiresAt: spec.expiration)
        let (stored, created) = try await env.store.insertPush(record, idempotentSince: ctx.now.addingTimeInterval(-env.configuration.idempotencyWindow))
        if created {
            env.metrics.increment("herald_pushes_accepted_total")
            engine.submitted(stored, app: app)
        } else if stored.request != record.request {
            throw APIError(status: 409, code: "idempotency_conflict",
                           message: "Idempotency key \(spec.idempotencyKey ?? "") was used for a different push (\(stored.id)) in the last 24 hours; use a new key for a new push.",
                           field: "idempotencyKey")
        }
        var headers = HTTPHeaders()
        headers.set("location", "/v1/pushes/\(stored.id)")
        if !created { headers.set("idempotent-replay", "true") }
        var body = try await statusJSON(stored, app: app, include: false, ctx: ctx)
        if case .object(var o) = body {
            o["unresolved"] = try await unresolved(spec, appID: appID)
            body = .object(o)
        }
        return .json(created ? 202 : 200, body, headers: headers)
    }

    /// Validates and sizes the audience without storing anything.
    func dryRun(_ spec: PushSpec, app: AppRecord, payloadBytes: Int, now: Date) async throws -> HTTPResponse {
        var count = 0, after: Int64 = 0
        var environments: [String: Int] = [:]
        while true {
            let page = try await env.store.audience(appID: app.id, selector: spec.selector, after: after, limit: 5_000)
            for m in page where spec.filter.isEmpty || spec.filter.matches(m) {
                count += 1
                environments[m.environment, default: 0] += 1
            }
            guard page.count == 5_000, let last = page.last else { break }
            after = last.seq
        }
        return .json(200, [
            "dryRun": true, "audience": .int(count), "unresolved": try await unresolved(spec, appID: app.id), "environments": .object(environments.mapValues { .int($0) }),
            "pushType": .string(spec.pushType.rawValue), "priority": .int(spec.priority), "payloadBytes": .int(payloadBytes),
        ])
    }

    /// Listed targets (tokens, ids, aliases, user ids) that match no active installation: reported, never fatal.
    func unresolved(_ spec: PushSpec, appID: String) async throws -> JSON {
        let missing = try await env.store.unresolvedTargets(appID: appID, source: spec.selector.source, limit: 100)
        return .array(missing.map(JSON.string))
    }

    func statusJSON(_ p: PushRecord, app: AppRecord?, include: Bool, ctx: RequestContext) async throws -> JSON {
        let failures = try await env.store.failureReasons(pushID: p.id)
        let pending = max(0, p.counts.targeted - p.counts.sent - p.counts.failed - p.counts.cancelled)
        var out: [String: JSON] = [
            "id": .string(p.id), "status": .string(p.status.rawValue), "idempotencyKey": .optional(p.idempotencyKey),
            "createdAt": ISO8601.json(p.createdAt), "updatedAt": ISO8601.json(p.updatedAt), "sendAt": ISO8601.json(p.sendAt),
            "expiresAt": ISO8601.json(p.expiresAt), "finishedAt": ISO8601.json(p.finishedAt), "fanOutComplete": .bool(p.fanoutDone),
            "counts": ["targeted": .int(p.counts.targeted), "sent": .int(p.counts.sent), "failed": .int(p.counts.failed),
                       "retired": .int(p.counts.retired), "opened": .int(p.counts.opened), "cancelled": .int(p.counts.cancelled),
                       "pending": .int(pending)],
            "failures": .object(failures.mapValues { .int($0) }),
            "error": p.errorCode.map { ["code": .string($0), "message": .optional(p.errorMessage)] } ?? .null,
            "paused": (!p.status.isFinal ? app?.pausedReason : nil).map {
                ["reason": .string($0), "since": ISO8601.json(app?.pausedAt),
                 "message": "APNs rejected the app's credential; upload a working one to resume."]
            } ?? .null,
        ]
        if include {
            let after = try InstallationsAPI.cursor(ctx)
            let limit = try ctx.intQuery("limit", default: 100, range: 1...1000)
            var state: DeliveryState?
            if let name = ctx.query("state") {
                guard let s = DeliveryState.allCases.first(where: { $0.name == name }) else {
                    throw APIError(status: 400, code: "invalid_query", message: "state must be one of \(DeliveryState.allCases.map(\.name).joined(separator: ", ")).", field: "state")
                }
                state = s
            }
            let rows = try await env.store.deliveries(pushID: p.id, state: state, afterID: after, limit: limit)
            out["deliveries"] = .array(rows.map { d in
                ["installationId": .string(d.installationID), "state": .string(d.state.name), "attempts": .int(d.attempts),
                 // Sent rows carried the id derived from push and installation; it is not stored.
                 "apnsId": d.state == .sent ? .string(stableAPNsID(pushID: p.id, installationID: d.installationID, crypto: env.crypto).lowercasedString) : .null,
                 "status": .optional(d.status), "reason": .optional(d.reason),
                 "badge": .optional(d.badge), "updatedAt": ISO8601.json(d.updatedAt)]
            })
            out["nextCursor"] = rows.count == limit ? .string(String(rows.last!.id)) : .null
        }
        return .object(out)
    }

    func get(_ ctx: RequestContext) async throws -> HTTPResponse {
        let appID = try ctx.appID
        guard let p = try await env.store.push(appID: appID, id: ctx.parameter("id")) else { throw APIError.notFound("Push \(ctx.parameter("id"))") }
        let include = ctx.query("include") == "deliveries"
        return .json(200, try await statusJSON(p, app: try await env.store.app(id: appID), include: include, ctx: ctx))
    }

    func list(_ ctx: RequestContext) async throws -> HTTPResponse {
        let appID = try ctx.appID
        let limit = try ctx.intQuery("limit", default: 50, range: 1...500)
        let before = try ctx.query("before").map { text -> Date in
            guard let d = ISO8601.parse(text) else { throw APIError(status: 400, code: "invalid_query", message: "before must be an ISO 8601 time.", field: "before") }
            return d
        }
        let status = try ctx.query("status").map { name -> PushStatus in
            guard let s = PushStatus(rawValue: name) else {
                throw APIError(status: 400, code: "invalid_query", message: "status must be one of \(PushStatus.allCases.map(\.rawValue).joined(separator: ", ")).", field: "status")
            }
            return s
        }
        let app = try await env.store.app(id: appID)
        var items: [JSON] = []
        for p in try await env.store.pushes(appID: appID, status: status, before: before, limit: limit) {
            items.append(try await statusJSON(p, app: app, include: false, ctx: ctx))
        }
        return .json(200, ["pushes": .array(items)])
    }

    func cancel(_ ctx: RequestContext) async throws -> HTTPResponse {
        let appID = try ctx.appID
        do {
            guard let p = try await env.store.cancelPush(appID: appID, id: ctx.parameter("id"), now: ctx.now) else {
                throw APIError.notFound("Push \(ctx.parameter("id"))")
            }
            return .json(200, try await statusJSON(p, app: nil, include: false, ctx: ctx))
        } catch StoreError.conflict(let message) {
            throw APIError(status: 409, code: "push_finished", message: "\(message); only scheduled, queued or sending pushes can be cancelled.")
        }
    }
}
