import Foundation
import HeraldHTTP
import HeraldStore

/// Health, readiness, metrics and the API description: open routes for load balancers and scrapers.
struct OperationsAPI {
    let env: ServiceEnvironment
    let isReady: @Sendable () -> Bool

    var routes: [Route] {
        [
            Route("GET", "/healthz", .open, "Liveness: the process answers.", handler: health),
            Route("GET", "/readyz", .open, "Readiness: the store answers and has room to write, and workers run; lists apps paused by credential failures.", handler: ready),
            Route("GET", "/metrics", .open, "Prometheus metrics.", handler: metrics),
            Route("GET", "/openapi.json", .open, "This API as an OpenAPI 3.1 document.", handler: openAPI),
        ]
    }

    func health(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, ["status": "ok", "apns": .optional(env.configuration.deliveryTarget)])
    }

    func ready(_ ctx: RequestContext) async throws -> HTTPResponse {
        do { try await env.store.ping() } catch {
            env.log(.error, "/readyz answered 503: the store does not answer reads: \(error)")
            return .json(503, ["status": "unavailable", "reason": .string("store: \(error)")])
        }
        // Logged when it starts and ends (by the service), not on every probe of a load balancer.
        if let failure = await env.store.checkStorage() {
            return .json(503, ["status": "unavailable", "reason": .string(Self.storageReason(failure))])
        }
        guard isReady() else { return .json(503, ["status": "starting"]) }
        let paused = try await env.store.apps().filter { $0.pausedReason != nil }
        return .json(200, ["status": "ready",
                           "pausedApps": .array(paused.map { ["id": .string($0.id), "reason": .optional($0.pausedReason), "since": ISO8601.json($0.pausedAt)] }),
                           "disabledWebhooks": try await WebhookStatus.disabledJSON(env)])
    }

    static func storageReason(_ failure: StoreError) -> String {
        "\(failure); writes answer 507 until disk space is freed (the server resumes by itself, nothing stored is lost)"
    }

    func metrics(_ ctx: RequestContext) async throws -> HTTPResponse {
        env.metrics.set("herald_queue_pending", Double(try await env.store.pendingDeliveryCount()))
        env.metrics.set("herald_apps_paused", Double(try await env.store.apps().filter { $0.pausedReason != nil }.count))
        try await WebhookStatus.refreshMetrics(env)
        return HTTPResponse(status: 200, headers: ["content-type": "text/plain; version=0.0.4"], body: Array(env.metrics.text().utf8))
    }

    func openAPI(_ ctx: RequestContext) async throws -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(OpenAPIDocument.text.utf8))
    }
}
