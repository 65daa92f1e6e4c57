import HeraldStore

/// An app's webhooks: where its events go. The signing secret is generated here, returned once (on create
/// and on rotation), sealed with the server's key at rest and never shown again.
struct WebhooksService: Sendable {
    let env: ServiceEnvironment
    let worker: WebhookWorker

    /// Webhooks per app.
    static let maxPerApp = 20

    struct Created: Sendable {
        var webhook: WebhookRecord
        /// The signing secret, in clear this once.
        var secret: String
    }

    func create(appID: String, _ input: WebhookInput) async throws -> Created {
        let app = try await AppsService(env: env).get(id: appID)
        guard let url = input.url else { throw ServiceError.missing("url") }
        _ = try WebhookURL.parse(url, allowHTTP: env.configuration.webhooks.allowHttp)
        guard try await env.store.webhooks(appID: app.id).count < Self.maxPerApp else {
            throw ServiceError.conflict("The app already has \(Self.maxPerApp) webhooks; delete one first.", code: "too_many_webhooks")
        }
        let now = env.clock.now()
        let secret = newSecret()
        let webhook = WebhookRecord(id: env.newID("wh_"), appID: app.id, url: url,
                                    events: input.events ?? WebhookEventType.defaultSubscription.map(\.rawValue),
                                    description: input.description ?? nil, enabled: input.enabled ?? true,
                                    sealedSecret: try env.crypto.seal(Array(secret.utf8)), createdAt: now, updatedAt: now)
        try await env.store.createWebhook(webhook)
        return Created(webhook: webhook, secret: secret)
    }

    func list(appID: String) async throws -> [WebhookRecord] {
        try await env.store.webhooks(appID: try await AppsService(env: env).get(id: appID).id)
    }

    func get(appID: String, id: String) async throws -> WebhookRecord {
        guard let webhook = try await env.store.webhook(appID: appID, id: id) else { throw Self.notFound(id) }
        return webhook
    }

    /// Changes url, events, description or enabled; enabling a disabled webhook starts its failure count afresh.
    func update(appID: String, id: String, _ input: WebhookInput) async throws -> WebhookRecord {
        var webhook = try await get(appID: appID, id: id)
        if let url = input.url {
            _ = try WebhookURL.parse(url, allowHTTP: env.configuration.webhooks.allowHttp)
            webhook.url = url
        }
        if let events = input.events { webhook.events = events }
        if let description = input.description { webhook.description = description }
        if let enabled = input.enabled {
            if enabled && !webhook.enabled { webhook.failureRun = 0; webhook.disabledReason = nil; webhook.disabledAt = nil }
            webhook.enabled = enabled
        }
        webhook.updatedAt = env.clock.now()
        guard try await env.store.updateWebhook(webhook) else { throw Self.notFound(id) }
        if webhook.enabled { worker.wake() }
        return webhook
    }

    /// The webhook, its undelivered events and its delivery history.
    func delete(appID: String, id: String) async throws {
        guard try await env.store.deleteWebhook(appID: appID, id: id) else { throw Self.notFound(id) }
    }

    /// A new secret; the old one stops signing at once (receivers should accept both while they switch).
    func rotateSecret(appID: String, id: String) async throws -> Created {
        var webhook = try await get(appID: appID, id: id)
        let secret = newSecret()
        webhook.sealedSecret = try env.crypto.seal(Array(secret.utf8))
        webhook.updatedAt = env.clock.now()
        guard try await env.store.updateWebhook(webhook) else { throw Self.notFound(id) }
        return Created(webhook: webhook, secret: secret)
    }

    /// Newest first; `before` is the last id of the previous page.
    func deliveries(appID: String, id: String, before: String?, limit: Int) async throws -> Page<WebhookDeliveryRecord, String> {
        let webhook = try await get(appID: appID, id: id)
        return Page(try await env.store.webhookDeliveries(webhookID: webhook.id, before: before, limit: limit), limit: limit) { $0.id }
    }

    /// Sends a delivery's events again now, as a new delivery (one attempt) with the same event ids.
    func redeliver(appID: String, id: String, deliveryID: String) async throws -> WebhookDeliveryRecord {
        guard let d = try await env.store.enqueueWebhookDelivery(appID: appID, webhookID: id, id: env.newID("whd_"), sourceID: deliveryID,
                                                                 now: env.clock.now()) else {
            throw ServiceError.notFound("Webhook \(id) or its delivery \(deliveryID) (pings cannot be redelivered)")
        }
        worker.wake()
        return d
    }

    /// Sends a `ping` event now (one attempt, even to a disabled webhook): see the answer in the deliveries.
    func ping(appID: String, id: String) async throws -> WebhookDeliveryRecord {
        guard let d = try await env.store.enqueueWebhookDelivery(appID: appID, webhookID: id, id: env.newID("whd_"), sourceID: nil,
                                                                 now: env.clock.now()) else { throw Self.notFound(id) }
        worker.wake()
        return d
    }

    private func newSecret() -> String { "whsec_" + KeyAuthenticator.base62(env.crypto.randomBytes(24)) }

    static func notFound(_ id: String) -> ServiceError { .notFound("Webhook \(id)") }
}
