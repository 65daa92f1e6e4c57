import APNSCore

/// The API as an OpenAPI 3.1 document, written by hand (a test checks it lists exactly the router's routes).
enum OpenAPIDocument {
    static let text: String = document.encoded

    static let schemeNames = ["admin": "adminKey", "admin or master": "appAdminKey", "master": "masterKey", "client": "clientKey"]

    /// `base` (an object) with `extra`'s members added; the extensions (JPush, webhooks, ...) add theirs this way.
    static func adding(_ extra: [String: JSON], to base: JSON) -> JSON {
        guard case .object(let o) = base else { return base }
        return .object(o.merging(extra) { a, _ in a })
    }

    static func ref(_ name: String) -> JSON { ["$ref": .string("#/components/schemas/\(name)")] }

    static func op(_ summary: String, auth: String?, body: String? = nil, bodyType: String = "application/json",
                   ok: Int = 200, response: String? = nil, params: [String] = [], query: [String] = []) -> JSON {
        var o: [String: JSON] = ["summary": .string(summary)]
        o["security"] = auth.map { [[schemeNames[$0] ?? $0: []]] } ?? []
        var parameters: [JSON] = params.map { ["name": .string($0), "in": "path", "required": true, "schema": ["type": "string"]] }
        parameters += query.map { ["name": .string($0), "in": "query", "required": false, "schema": ["type": "string"]] }
        if !parameters.isEmpty { o["parameters"] = .array(parameters) }
        if let body { o["requestBody"] = ["required": true, "content": .object([bodyType: ["schema": ref(body)]])] }
        var responses: [String: JSON] = [:]
        responses[String(ok)] = response.map { ["description": "OK", "content": ["application/json": ["schema": ref($0)]]] } ?? ["description": "OK"]
        // 408, 414, 431 and 505 come from the HTTP/1.1 listener itself, for any route (docs/server.md).
        for code in ["400", "401", "403", "404", "408", "409", "413", "414", "422", "429", "431", "500", "505"] {
            responses[code] = ["description": "Error", "content": ["application/json": ["schema": ref("Error")]]]
        }
        o["responses"] = .object(responses)
        return .object(o)
    }

    static let paths: JSON = [
        "/v1/apps": [
            "post": op("Create an app; the response carries its master and client keys once.", auth: "admin", body: "AppInput", ok: 201, response: "AppWithKeys"),
            "get": op("List apps.", auth: "admin", response: "AppList"),
        ],
        "/v1/apps/{appId}": [
            "get": op("Get an app.", auth: "admin or master", response: "App", params: ["appId"]),
            "patch": op("Change an app.", auth: "admin or master", body: "AppInput", response: "App", params: ["appId"]),
            "delete": op("Delete an app and all its data.", auth: "admin", ok: 204, params: ["appId"]),
        ],
        "/v1/apps/{appId}/keys": ["get": op("List keys (hints only).", auth: "admin or master", response: "KeyList", params: ["appId"])],
        "/v1/apps/{appId}/keys/{scope}/rotate": ["post": op("Issue a new master or client key; old ones of that scope are revoked.", auth: "admin or master", ok: 201, response: "IssuedKey", params: ["appId", "scope"])],
        "/v1/admin/keys/rotate": ["post": op("Issue a new admin key; old admin keys are revoked.", auth: "admin", ok: 201, response: "IssuedKey")],
        "/v1/apps/{appId}/credentials": ["get": op("List credentials (metadata, never secrets).", auth: "admin or master", response: "CredentialList", params: ["appId"])],
        "/v1/apps/{appId}/credentials/{environment}": [
            "put": op("Upload the APNs credential for sandbox or production.", auth: "admin or master", body: "CredentialInput", response: "Credential", params: ["appId", "environment"]),
            "delete": op("Delete a credential.", auth: "admin or master", ok: 204, params: ["appId", "environment"]),
        ],
        "/v1/installations": [
            "post": op("Create (201) or update (200) an installation, matched by installationId then deviceToken.", auth: "client", body: "InstallationInput", ok: 201, response: "Installation"),
            "get": op("Query installations.", auth: "master", response: "InstallationPage",
                      query: ["tag", "alias", "userId", "deviceToken", "active", "updatedSince", "cursor", "limit"]),
        ],
        "/v1/installations/{id}": [
            "get": op("Get an installation by id or installationId.", auth: "master", response: "Installation", params: ["id"]),
            "patch": op("Update an installation.", auth: "client", body: "InstallationInput", response: "Installation", params: ["id"]),
            "delete": op("Delete an installation.", auth: "client", ok: 204, params: ["id"]),
        ],
        "/v1/installations/{id}/tags": ["post": op("Add and remove tags.", auth: "client", body: "TagChange", response: "Installation", params: ["id"])],
        "/v1/installations/import": ["post": op("Import installations (format=jsonl or csv; format=leancloud: a LeanCloud _Installation export, JSON lines or {\"results\": [...]}, whose iOS rows keep their objectId as id).", auth: "master", body: "InstallationInput", bodyType: "application/x-ndjson", response: "ImportResult", query: ["format"])],
        "/v1/installations/export": ["get": op("Export installations as JSON lines or CSV, streamed.", auth: "master", query: ["format"])],
        "/v1/tags": ["get": op("List tags with counts.", auth: "master", response: "TagList", query: ["cursor", "limit"])],
        "/v1/tags/{tag}": ["delete": op("Remove a tag from every installation.", auth: "master", response: "TagRemoval", params: ["tag"])],
        "/v1/aliases": ["get": op("List aliases with counts.", auth: "master", response: "AliasList", query: ["cursor", "limit"])],
        "/v1/opens": ["post": op("Report an opened push (idempotent).", auth: "client", body: "Open", ok: 202)],
        "/v1/pushes": [
            "post": op("Send a push; answers at once (202, or 200 for an idempotent replay; a dry run answers with the audience size).", auth: "master", body: "PushInput", ok: 202, response: "PushStatus"),
            "get": op("List pushes, newest first.", auth: "master", response: "PushList", query: ["status", "before", "limit"]),
        ],
        "/v1/pushes/{id}": ["get": op("Push status and counts; include=deliveries adds per-device outcomes.", auth: "master", response: "PushStatus", params: ["id"], query: ["include", "state", "cursor", "limit"])],
        "/v1/pushes/{id}/cancel": ["post": op("Cancel a push that has not finished.", auth: "master", response: "PushStatus", params: ["id"])],
        "/healthz": ["get": op("Liveness.", auth: nil)],
        "/readyz": ["get": readiness],
        "/metrics": ["get": op("Prometheus metrics.", auth: nil)],
        "/openapi.json": ["get": op("This document.", auth: nil)],
    ]

    /// 503 while the store does not answer or has no room to write (`reason` says which), else 200.
    static let readiness: JSON = {
        guard case .object(var o) = op("Readiness: the store answers and has room to write; lists apps paused by credential failures.", auth: nil),
              case .object(var responses) = o["responses"] else { return [:] }
        responses["503"] = ["description": "Not ready: starting, the store does not answer, or storage is full ({status, reason})"]
        o["responses"] = .object(responses)
        return .object(o)
    }()

    /// Every operation that writes (all but GET) can meet a full disk: 507 `storage_full`.
    static func withStorageFull(_ paths: JSON) -> JSON {
        guard case .object(let byPath) = paths else { return paths }
        return .object(byPath.mapValues { methods in
            guard case .object(let byMethod) = methods else { return methods }
            return .object(Dictionary(uniqueKeysWithValues: byMethod.map { method, operation in
                guard method != "get", case .object(var o) = operation, case .object(var responses) = o["responses"] else { return (method, operation) }
                responses["507"] = ["description": "Insufficient Storage: the server's disk is full (storage_full); the request was not completed",
                                    "content": ["application/json": ["schema": ref("Error")]]]
                o["responses"] = .object(responses)
                return (method, .object(o))
            }))
        })
    }

    static func object(_ properties: [String: JSON], required: [String] = []) -> JSON {
        var o: [String: JSON] = ["type": "object", "properties": .object(properties)]
        if !required.isEmpty { o["required"] = .array(required.map(JSON.string)) }
        return .object(o)
    }
    static let string: JSON = ["type": "string"]
    static let nullableString: JSON = ["type": ["string", "null"]]
    static let integer: JSON = ["type": "integer"]
    static let time: JSON = ["type": ["string", "null"], "format": "date-time"]
    /// A time written into the payload as UNIX seconds (Live Activities), given as those seconds or as ISO 8601.
    static let unixTime: JSON = ["oneOf": [["type": "integer", "minimum": 0], ["type": "string", "format": "date-time"]]]
    static let strings: JSON = ["type": "array", "items": ["type": "string"]]
    static func list(_ key: String, _ item: JSON) -> JSON { object([key: ["type": "array", "items": item], "nextCursor": nullableString]) }

    static let installationFields: [String: JSON] = [
        "installationId": string, "deviceToken": ["type": "string", "pattern": "^[0-9a-fA-F]+$"],
        "environment": ["enum": ["sandbox", "production"]], "topic": nullableString, "tags": strings, "alias": nullableString,
        "userId": nullableString, "locale": nullableString, "timeZone": nullableString, "badge": integer, "appVersion": nullableString,
        "osVersion": nullableString, "deviceModel": nullableString, "properties": ["type": "object"],
    ]

    static let schemas: JSON = [
        "Error": object(["error": object(["code": string, "message": string, "field": nullableString], required: ["code", "message", "field"])], required: ["error"]),
        "AppInput": object(["name": string, "topic": nullableString, "defaultTimeZone": string, "rateLimit": integer]),
        "App": object(["id": string, "name": string, "topic": nullableString, "defaultTimeZone": string, "rateLimit": integer,
                       "paused": ["type": ["object", "null"]], "createdAt": time, "updatedAt": time]),
        "AppWithKeys": ["allOf": [ref("App"), object(["keys": object(["master": string, "client": string])])]],
        "AppList": object(["apps": ["type": "array", "items": ref("App")]]),
        "Key": object(["id": string, "scope": ["enum": ["admin", "master", "client"]], "hint": string, "createdAt": time, "revokedAt": time]),
        "KeyList": object(["keys": ["type": "array", "items": ref("Key")]]),
        "IssuedKey": ["allOf": [ref("Key"), object(["key": string])]],
        "CredentialInput": object(["type": ["enum": ["token", "certificate"]], "keyId": string, "teamId": string, "key": string,
                                   "p12": string, "certificate": string, "privateKey": string, "passphrase": string, "topic": string], required: ["type"]),
        "Credential": object(["environment": string, "type": string, "keyId": nullableString, "teamId": nullableString, "topic": nullableString,
                              "createdAt": time, "updatedAt": time, "state": ["enum": ["accepted", "rejected", "unused"]],
                              "lastAcceptedAt": time, "lastRejectedAt": time, "lastRejectionReason": nullableString]),
        "CredentialList": object(["credentials": ["type": "array", "items": ref("Credential")]]),
        "InstallationInput": object(installationFields),
        "Installation": object(installationFields.merging(["id": string, "active": ["type": "boolean"], "inactiveReason": nullableString,
                                                           "inactiveAt": time, "createdAt": time, "updatedAt": time, "lastSeenAt": time]) { a, _ in a }),
        "InstallationPage": list("installations", ref("Installation")),
        "TagChange": object(["add": strings, "remove": strings]),
        "TagList": list("tags", object(["tag": string, "count": integer])),
        "AliasList": list("aliases", object(["alias": string, "count": integer])),
        "TagRemoval": object(["tag": string, "removed": integer]),
        // `skipped` (rows of other device types) and each error's `record` (its place in the file) with format=leancloud.
        "ImportResult": object(["created": integer, "updated": integer, "failed": integer, "skipped": integer, "errors": ["type": "array"]]),
        "Open": ["oneOf": [
            object(["pushId": string, "installationId": string], required: ["pushId", "installationId"]),
            // The APNs simulator's opened report (herald sim --opened-callback): the push id is custom.herald.pushId.
            object(["deviceId": string, "bundleId": string, "deviceToken": string, "apnsId": string, "openedAt": time, "openedAtMs": integer,
                    "custom": ["type": "object"]], required: ["deviceToken", "custom"]),
        ]],
        "PushInput": object([
            "target": object(["all": ["type": "boolean"], "tokens": strings, "installationIds": strings, "aliases": strings, "userIds": strings,
                              "tags": ["oneOf": [strings, object(["any": strings, "all": strings, "none": strings])]],
                              "environment": ["enum": ["sandbox", "production"]],
                              "filter": object(["locale": [:], "appVersion": [:], "timeZone": [:], "properties": ["type": "object"]])]),
            "content": object(["alert": ["oneOf": [string, ["type": "object"]]], "localized": ["type": "object"], "sound": [:],
                               "badge": ["oneOf": [integer, object(["set": integer]), object(["increment": integer]), object(["decrement": integer])]],
                               "contentAvailable": ["type": "boolean"], "mutableContent": ["type": "boolean"], "category": string,
                               "threadId": string, "interruptionLevel": ["enum": ["passive", "active", "time-sensitive", "critical"]],
                               "relevanceScore": ["type": "number"], "targetContentId": string, "filterCriteria": string,
                               "contentChanged": ["type": "boolean"], "contentState": ["type": "object"],
                               "event": ["enum": ["start", "update", "end"]], "timestamp": unixTime, "dismissalDate": unixTime,
                               "staleDate": unixTime, "attributesType": string, "attributes": ["type": "object"],
                               "data": ["type": "object"]]),
            "options": object(["pushType": ["enum": .array(APNSPushType.allKnown.map { .string($0.rawValue) })], "priority": ["enum": [10, 5, 1]], "expiration": time, "ttl": integer, "collapseId": string,
                               "topic": string, "sendAt": time, "localTime": ["type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$"], "rateLimit": integer]),
            "idempotencyKey": string, "dryRun": ["type": "boolean"],
        ], required: ["target", "content"]),
        "PushStatus": object([
            "id": string, "status": ["enum": ["scheduled", "queued", "sending", "done", "cancelled", "failed"]],
            "idempotencyKey": nullableString, "createdAt": time, "updatedAt": time, "sendAt": time, "expiresAt": time, "finishedAt": time,
            "fanOutComplete": ["type": "boolean"],
            "counts": object(["targeted": integer, "sent": integer, "failed": integer, "retired": integer, "opened": integer, "cancelled": integer, "pending": integer]),
            "failures": ["type": "object", "additionalProperties": integer], "error": ["type": ["object", "null"]], "paused": ["type": ["object", "null"]],
            "deliveries": ["type": "array", "items": object(["installationId": string, "state": string, "attempts": integer, "apnsId": nullableString,
                                                             "status": ["type": ["integer", "null"]], "reason": nullableString, "badge": ["type": ["integer", "null"]], "updatedAt": time])],
            "nextCursor": nullableString, "unresolved": strings,
        ]),
        "PushList": object(["pushes": ["type": "array", "items": ref("PushStatus")]]),
    ]

    static let document: JSON = [
        "openapi": "3.1.0",
        "info": ["title": "Herald provider API", "version": "1",
                 "description": "Self-hosted APNs provider: apps, installations, pushes. Errors are {\"error\":{\"code\",\"message\",\"field\"}}."],
        "paths": withStorageFull(adding(installationHistoryPaths, to: adding(consolePaths, to: adding(leanCloudPaths, to: adding(webhookPaths, to: adding(jpushPaths, to: paths)))))),
        "components": [
            "schemas": adding(installationHistorySchemas, to: adding(consoleSchemas, to: adding(leanCloudSchemas, to: adding(webhookSchemas, to: adding(jpushSchemas, to: schemas))))),
            "securitySchemes": adding(leanCloudSecuritySchemes, to: adding(jpushSecuritySchemes, to: [
                "adminKey": ["type": "http", "scheme": "bearer", "description": "Admin key: manages apps."],
                "appAdminKey": ["type": "http", "scheme": "bearer", "description": "Admin key, or the master key of the app in the path."],
                "masterKey": ["type": "http", "scheme": "bearer", "description": "The app's master key (server side only)."],
                "clientKey": ["type": "http", "scheme": "bearer", "description": "The app's client key (shipped in the app) or its master key."],
            ])),
        ],
    ]
}
