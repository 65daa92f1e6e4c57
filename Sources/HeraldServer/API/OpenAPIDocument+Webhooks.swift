import HeraldStore

/// The webhooks routes and schemas (WebhooksAPI), merged into the document.
extension OpenAPIDocument {
    static let webhookPaths: [String: JSON] = [
        "/v1/apps/{appId}/webhooks": [
            "post": op("Create a webhook; the response carries its signing secret once.", auth: "admin or master", body: "WebhookInput", ok: 201,
                       response: "WebhookWithSecret", params: ["appId"]),
            "get": op("List the app's webhooks (never their secrets).", auth: "admin or master", response: "WebhookList", params: ["appId"]),
        ],
        "/v1/apps/{appId}/webhooks/{webhookId}": [
            "get": op("Get a webhook.", auth: "admin or master", response: "Webhook", params: ["appId", "webhookId"]),
            "patch": op("Change url, events, description or enabled; enabling clears a failure run.", auth: "admin or master", body: "WebhookInput",
                        response: "Webhook", params: ["appId", "webhookId"]),
            "delete": op("Delete a webhook with its undelivered events.", auth: "admin or master", ok: 204, params: ["appId", "webhookId"]),
        ],
        "/v1/apps/{appId}/webhooks/{webhookId}/rotate-secret": [
            "post": op("Issue a new signing secret (returned once); the old one stops signing at once.", auth: "admin or master",
                       response: "WebhookWithSecret", params: ["appId", "webhookId"]),
        ],
        "/v1/apps/{appId}/webhooks/{webhookId}/deliveries": [
            "get": op("Deliveries newest first, with every attempt (status, first 1 KiB of the answer, latency).", auth: "admin or master",
                      response: "WebhookDeliveryPage", params: ["appId", "webhookId"], query: ["cursor", "limit"]),
        ],
        "/v1/apps/{appId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver": [
            "post": op("Send a delivery's events again now, as a new delivery with the same event ids (one attempt).", auth: "admin or master",
                       ok: 202, response: "WebhookDelivery", params: ["appId", "webhookId", "deliveryId"]),
        ],
        "/v1/apps/{appId}/webhooks/{webhookId}/ping": [
            "post": op("Send a ping event now (one attempt); its result shows in the deliveries.", auth: "admin or master", ok: 202,
                       response: "WebhookDelivery", params: ["appId", "webhookId"]),
        ],
    ]

    static let webhookSchemas: [String: JSON] = [
        "WebhookInput": object(["url": string, "events": ["type": "array", "items": ["enum": .array(WebhookEventType.allCases.map { .string($0.rawValue) })]],
                                "description": nullableString, "enabled": ["type": "boolean"]]),
        "Webhook": object(["id": string, "appId": string, "url": string, "events": strings, "description": nullableString,
                           "enabled": ["type": "boolean"], "failureRun": integer, "disabled": ["type": ["object", "null"]],
                           "createdAt": time, "updatedAt": time]),
        "WebhookWithSecret": ["allOf": [ref("Webhook"), object(["secret": string])]],
        "WebhookList": object(["webhooks": ["type": "array", "items": ref("Webhook")]]),
        "WebhookDelivery": object([
            "id": string, "webhookId": string, "kind": ["enum": ["events", "ping", "redelivery"]], "state": ["enum": ["pending", "delivered", "failed"]],
            "sourceId": nullableString, "eventCount": integer, "createdAt": time, "nextAttemptAt": time, "finishedAt": time,
            "attempts": ["type": "array", "items": object(["number": integer, "at": time, "status": ["type": ["integer", "null"]],
                                                            "body": nullableString, "error": nullableString, "latencyMs": integer])],
        ]),
        "WebhookDeliveryPage": list("deliveries", ref("WebhookDelivery")),
    ]

}
