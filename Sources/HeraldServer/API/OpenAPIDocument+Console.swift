/// The web console's routes (sign-in, its files) and the built-in simulator's, for `/openapi.json`.
extension OpenAPIDocument {
    static let consolePaths: [String: JSON] = [
        "/console": ["get": op("The web console (HTML; docs/console.md).", auth: nil)],
        "/console/{file}": ["get": op("A file of the web console (script, style, image), gzip when accepted, strong ETag.", auth: nil, params: ["file"])],
        "/v1/console/session": [
            "post": op("Sign in with an admin or master key; sets an HttpOnly SameSite=Strict session cookie. Needs an X-Herald-CSRF header (any value).",
                       auth: nil, body: "ConsoleSignIn", ok: 201, response: "ConsoleSession"),
            "get": op("The cookie's session: role, app, the CSRF token to send as X-Herald-CSRF, expiry.", auth: nil, response: "ConsoleSession"),
            "delete": op("Sign out (with the session's X-Herald-CSRF); the session stops working on every node.", auth: nil, ok: 204),
        ],
        "/v1/stats": ["get": op("An app's pushes and deliveries (sent, failed by reason, opened) per hour or day, installations and queue depth.",
                                auth: "master", response: "Statistics", query: ["interval", "limit"])],
        "/v1/simulator/devices": ["get": op("The built-in simulator's devices with the app installed (404 simulator_off without one).", auth: "master",
                                            response: "SimulatorDevicePage", query: ["cursor", "limit"])],
        "/v1/simulator/devices/{deviceId}/notifications": ["get": op("The app's notifications a simulated device received, newest first.", auth: "master",
                                                                     response: "SimulatorNotificationList", params: ["deviceId"], query: ["sinceMs", "limit"])],
        "/v1/simulator/devices/{deviceId}/opened": ["post": op("Open a notification on a simulated device; a Herald push counts the open.", auth: "master",
                                                               body: "SimulatorOpen", ok: 201, params: ["deviceId"])],
    ]

    static let consoleSchemas: [String: JSON] = [
        "ConsoleSignIn": object(["key": string], required: ["key"]),
        "ConsoleSession": object(["role": ["type": "string", "enum": ["admin", "master"]], "appId": nullableString, "csrfToken": string,
                                  "expiresAt": time, "idleLimitSeconds": integer, "absoluteLimitSeconds": integer]),
        "SimulatorDevicePage": object(["devices": ["type": "array", "items": object(["id": string, "name": string, "online": ["type": "boolean"],
                                                                                     "notifications": integer, "apps": ["type": "array"]])],
                                       "nextCursor": nullableString]),
        "SimulatorNotificationList": object(["notifications": ["type": "array", "items": object([
            "apnsId": string, "bundleId": string, "pushType": string, "priority": integer, "payload": ["type": "object"],
            "deliveredAt": time, "deliveredAtMs": integer, "opened": ["type": "boolean"]])]]),
        "SimulatorOpen": object(["apnsId": string], required: ["apnsId"]),
        "Statistics": object([
            "interval": ["type": "string", "enum": ["hour", "day"]],
            "buckets": ["type": "array", "items": object(["start": time, "pushes": integer, "targeted": integer, "sent": integer, "failed": integer,
                                                          "opened": integer, "failedByReason": ["type": "object", "additionalProperties": integer]])],
            "installations": object(["active": integer, "retired": integer]), "queue": object(["pending": integer])]),
        "PushDryRun": object([
            "dryRun": ["type": "boolean"], "audience": integer, "unresolved": ["type": "array", "items": string],
            "environments": ["type": "object", "additionalProperties": integer], "pushType": string, "priority": integer,
            "payloadBytes": integer, "payloadLimit": integer, "headers": ["type": "object", "additionalProperties": string],
            "variants": ["type": "array", "items": object(["locale": string, "bytes": integer, "payload": ["type": "object"]])]]),
    ]
}
