/// An installation's deliveries (the console's device page), for `/openapi.json`.
extension OpenAPIDocument {
    static let installationHistoryPaths: [String: JSON] = [
        "/v1/installations/{id}/deliveries": ["get": op(
            "The pushes an installation (Herald id or installationId) was targeted by, newest first, with each delivery's state, APNs status and reason.",
            auth: "master", response: "InstallationDeliveryPage", params: ["id"], query: ["cursor", "limit"])],
    ]

    static let installationHistorySchemas: [String: JSON] = [
        "InstallationDeliveryPage": list("deliveries", object([
            "pushId": string, "pushStatus": string, "pushCreatedAt": time, "summary": nullableString,
            "state": ["type": "string", "enum": ["pending", "inFlight", "sent", "failed", "cancelled"]], "attempts": integer,
            "status": ["type": ["integer", "null"]], "reason": nullableString, "apnsId": nullableString, "updatedAt": time])),
    ]
}
