/// The LeanCloud-compatible routes (`LeanCloudAPI`, `LeanCloudKeysAPI`) in the OpenAPI document. The `/1.1/*`
/// operations answer errors in LeanCloud's body (`LeanCloudError`) and accept LeanCloud's key headers.
extension OpenAPIDocument {
    /// An operation of LeanCloud's protocol: its errors are `LeanCloudError`, its keys LeanCloud's or Herald's.
    static func leanCloudOp(_ summary: String, auth: String, body: String? = nil, ok: Int = 200, response: String? = nil,
                            params: [String] = [], query: [String] = []) -> JSON {
        guard case .object(var o) = op(summary, auth: auth, body: body, ok: ok, response: response, params: params, query: query),
              case .object(var responses) = o["responses"] else { return [:] }
        for (code, value) in responses where value["content"] != nil && code != String(ok) {
            responses[code] = ["description": "Error", "content": ["application/json": ["schema": ref("LeanCloudError")]]]
        }
        o["responses"] = .object(responses)
        let herald = schemeNames[auth] ?? auth
        let schemes = (auth == "master" ? ["leanCloudMasterKey", "leanCloudSign"] : ["leanCloudAppKey", "leanCloudMasterKey", "leanCloudSign"]) + [herald]
        o["security"] = .array(schemes.map { .object([$0: []]) })
        return .object(o)
    }

    static let leanCloudPaths: [String: JSON] = {
        var paths: [String: JSON] = [:]
        for base in LeanCloudAPI.installationPaths {
            paths[base] = [
                "post": leanCloudOp("Save an _Installation: creates (201) or updates (200) the one with the same objectId, installationId, then deviceToken.",
                                    auth: "client", body: "LeanCloudInstallation", ok: 201, response: "LeanCloudObject", query: ["fetchWhenSave"]),
                "get": leanCloudOp("Query _Installation: where ($in, $nin, $ne, $exists, $or, $and, $all, $lt/$gt...), order, limit (≤ 1000), skip, count=1, keys.",
                                   auth: "master", response: "LeanCloudResults", query: ["where", "order", "limit", "skip", "count", "keys"]),
            ]
            paths[base + "/{objectId}"] = [
                "get": leanCloudOp("Fetch an _Installation.", auth: "client", response: "LeanCloudInstallation", params: ["objectId"], query: ["keys"]),
                "put": leanCloudOp("Update an _Installation (channels AddUnique/Add/Remove/Delete, badge Increment, custom columns).", auth: "client",
                                   body: "LeanCloudInstallation", response: "LeanCloudObject", params: ["objectId"], query: ["fetchWhenSave"]),
                "delete": leanCloudOp("Delete an _Installation.", auth: "master", params: ["objectId"]),
            ]
        }
        paths["/1.1/batch"] = ["post": leanCloudOp("Up to 100 _Installation operations; answers [{success}|{error}] in order.", auth: "client", body: "LeanCloudBatch", response: "LeanCloudBatchResults")]
        paths["/1.1/batch/save"] = ["post": leanCloudOp("The SDKs' batch save; answers {<__internalId or objectId>: {objectId, createdAt, updatedAt}}.", auth: "client", body: "LeanCloudBatch", response: "LeanCloudBatchSave")]
        paths["/1.1/push"] = ["post": leanCloudOp("Push to _Installation (where, channels, data with the iOS fields, prod, topic, push_time, expiration_time/interval, req_id, flow_control).",
                                                  auth: "master", body: "LeanCloudPush", response: "LeanCloudObject")]
        paths["/1.1/classes/_Notification/{objectId}"] = ["get": leanCloudOp("A push's record: status in-queue/scheduled/done, devices, successes, errors.", auth: "master", response: "LeanCloudNotification", params: ["objectId"])]
        paths["/1.1/tables/Notifications/{objectId}"] = ["get": leanCloudOp("A push's record, as the SDKs' Notification.fetch() reads it.", auth: "master", response: "LeanCloudNotification", params: ["objectId"])]
        paths["/1.1/classes/_Notification"] = ["get": leanCloudOp("Recent push records, newest first (where on objectId or status, limit).", auth: "master", response: "LeanCloudResults", query: ["where", "limit"])]
        paths["/v1/apps/{appId}/leancloud"] = [
            "put": op("Set the app's LeanCloud App ID, App Key and Master Key (sealed at rest, never returned).", auth: "admin or master", body: "LeanCloudKeysInput", response: "LeanCloudKeys", params: ["appId"]),
            "get": op("The app's LeanCloud App ID and key hints.", auth: "admin or master", response: "LeanCloudKeys", params: ["appId"]),
            "delete": op("Remove the app's LeanCloud keys.", auth: "admin or master", ok: 204, params: ["appId"]),
        ]
        return paths
    }()

    static let leanCloudSchemas: [String: JSON] = [
        "LeanCloudError": object(["code": integer, "error": string], required: ["code", "error"]),
        "LeanCloudInstallation": ["type": "object", "additionalProperties": true, "description": "Custom columns are kept as the installation's properties.",
                                  "properties": ["objectId": string, "deviceType": string, "deviceToken": string, "installationId": string, "channels": strings,
                                                 "timeZone": string, "badge": integer, "apnsTopic": string, "apnsTeamId": string, "deviceProfile": string,
                                                 "localeIdentifier": string, "appVersion": string, "valid": ["type": "boolean"], "createdAt": time, "updatedAt": time]],
        "LeanCloudPush": object(["where": ["type": "object"], "channels": strings, "data": ["type": "object"], "prod": ["enum": ["dev", "prod"]],
                                 "topic": string, "apns_team_id": string, "push_time": time, "expiration_interval": integer, "expiration_time": time,
                                 "notification_id": string, "req_id": string, "flow_control": integer], required: ["data"]),
        "LeanCloudObject": object(["objectId": string, "createdAt": time, "updatedAt": time]),
        "LeanCloudResults": object(["results": ["type": "array", "items": ["type": "object"]], "count": integer]),
        "LeanCloudBatch": object(["requests": ["type": "array", "items": object(["method": string, "path": string, "body": ["type": "object"]])]], required: ["requests"]),
        "LeanCloudBatchResults": ["type": "array", "items": object(["success": ["type": "object"], "error": ref("LeanCloudError")])],
        "LeanCloudBatchSave": ["type": "object", "additionalProperties": ref("LeanCloudObject")],
        "LeanCloudNotification": object(["objectId": string, "status": ["enum": ["in-queue", "scheduled", "done"]], "devices": integer,
                                         "successes": integer, "errors": integer, "invalidTokens": integer, "prod": string,
                                         "data": ["type": "object"], "where": ["type": "object"], "createdAt": time, "updatedAt": time]),
        "LeanCloudKeysInput": object(["appId": string, "appKey": string, "masterKey": string], required: ["appId", "appKey", "masterKey"]),
        "LeanCloudKeys": object(["appId": string, "hints": ["type": "object"], "updatedAt": time]),
    ]

    static let leanCloudSecuritySchemes: [String: JSON] = [
        "leanCloudAppKey": ["type": "apiKey", "in": "header", "name": "X-LC-Key", "description": "The App Key, with X-LC-Id: <App ID> (a Herald key also works)."],
        "leanCloudMasterKey": ["type": "apiKey", "in": "header", "name": "X-LC-Key", "description": "'<Master Key>,master', with X-LC-Id: <App ID>."],
        "leanCloudSign": ["type": "apiKey", "in": "header", "name": "X-LC-Sign", "description": "md5(timestamp + key),timestamp[,master], timestamp in ms within 15 minutes of the server's clock, with X-LC-Id."],
    ]

}
