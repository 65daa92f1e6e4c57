import Foundation
import HeraldStore

/// The outbox as operators see it: `/readyz` lists disabled webhooks, `/metrics` the pending events, the
/// oldest one's age and the disabled count, an app's status its own disabled webhooks.
enum WebhookStatus {
    static func disabledJSON(_ env: ServiceEnvironment) async throws -> JSON {
        .array(try await env.store.webhookQueueStats().disabled.map {
            ["appId": .string($0.appID), "webhookId": .string($0.webhookID), "reason": .string($0.reason)]
        })
    }

    static func refreshMetrics(_ env: ServiceEnvironment) async throws {
        let stats = try await env.store.webhookQueueStats()
        env.metrics.set("herald_webhook_events_pending", Double(stats.pendingEvents))
        env.metrics.set("herald_webhook_oldest_pending_seconds", stats.oldestPending.map { max(0, env.clock.now().timeIntervalSince($0)) } ?? 0)
        env.metrics.set("herald_webhooks_disabled", Double(stats.disabled.count))
    }
}
