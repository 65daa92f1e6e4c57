/// The JPush-compatible routes (`/v3/*`) and the app's JPush keys (`/v1/apps/{appId}/jpush`) in the OpenAPI
/// document. The `/v3` routes take JPush's HTTP Basic credentials (or the master key as a bearer token) and
/// answer errors as JPush does: `{"error":{"code":<int>,"message"}}`.
extension OpenAPIDocument {
    static func jpushOp(_ summary: String, body: String? = nil, response: String? = nil, params: [String] = [], query: [String] = []) -> JSON {
        var o: [String: JSON] = ["summary": .string(summary), "security": [["jpushBasic": []], ["masterKey": []]], "tags": ["JPush-compatible"]]
        var parameters: [JSON] = params.map { ["name": .string($0), "in": "path", "required": true, "schema": ["type": "string"]] }
        parameters += query.map { ["name": .string($0), "in": "query", "required": false, "schema": ["type": "string"]] }
        if !parameters.isEmpty { o["parameters"] = .array(parameters) }
        if let body { o["requestBody"] = ["required": true, "content": ["application/json": ["schema": ref(body)]]] }
        var responses: [String: JSON] = ["200": response.map { ["description": "OK", "content": ["application/json": ["schema": ref($0)]]] } ?? ["description": "OK (empty body)"]]
        for code in ["400", "401", "403", "404", "429", "500"] {
            responses[code] = ["description": "JPush error", "content": ["application/json": ["schema": ref("JPushError")]]]
        }
        o["responses"] = .object(responses)
        return .object(o)
    }

    static let jpushPaths: [String: JSON] = [
        "/v1/apps/{appId}/jpush": [
            "put": op("Set the app's JPush App Key and Master Secret (sealed at rest, never returned).", auth: "admin or master", body: "JPushKeysInput", response: "JPushKeys", params: ["appId"]),
            "get": op("The app's JPush App Key and a hint of its Master Secret.", auth: "admin or master", response: "JPushKeys", params: ["appId"]),
            "delete": op("Remove the app's JPush keys.", auth: "admin or master", ok: 204, params: ["appId"]),
        ],
        "/v3/push": ["post": jpushOp("JPush-compatible push; msg_id is the Herald push id (digits).", body: "JPushPush", response: "JPushPushResult")],
        "/v3/push/validate": ["post": jpushOp("Validate a JPush push and check its audience; nothing is sent.", body: "JPushPush", response: "JPushPushResult")],
        "/v3/push/cid": ["get": jpushOp("Fresh cids for idempotent pushes.", response: "JPushCidList", query: ["count", "type"])],
        "/v3/schedules": [
            "post": jpushOp("Create a single-time schedule (periodical triggers are refused).", body: "JPushSchedule", response: "JPushScheduleCreated"),
            "get": jpushOp("List schedules, 50 per page.", response: "JPushScheduleList", query: ["page"]),
        ],
        "/v3/schedules/{schedule_id}": [
            "get": jpushOp("Get a schedule.", response: "JPushSchedule", params: ["schedule_id"]),
            "put": jpushOp("Update a schedule (any of name, enabled, trigger, push).", body: "JPushSchedule", response: "JPushSchedule", params: ["schedule_id"]),
            "delete": jpushOp("Delete a schedule; its push is cancelled if not sent.", params: ["schedule_id"]),
        ],
        "/v3/schedules/{schedule_id}/msg_ids": ["get": jpushOp("The msg_ids a schedule has sent.", response: "JPushScheduleMsgIDs", params: ["schedule_id"])],
        "/v3/devices/{registration_id}": [
            "get": jpushOp("A device's tags and alias (registration_id: the installation's installationId or Herald id).", response: "JPushDevice", params: ["registration_id"]),
            "post": jpushOp("Change a device's tags ({add, remove} or \"\") and alias (\"\" clears).", body: "JPushDeviceUpdate", params: ["registration_id"]),
        ],
        "/v3/devices/status": ["post": jpushOp("Devices' online status (always offline: APNs devices do not connect to Herald) and last seen time.", body: "JPushRegistrationIDs", response: "JPushDeviceStatus")],
        "/v3/tags": ["get": jpushOp("The app's tags (first 100).", response: "JPushTagList")],
        "/v3/tags/{tag}": [
            "post": jpushOp("Add devices to and remove devices from a tag.", body: "JPushTagUpdate", params: ["tag"]),
            "delete": jpushOp("Remove a tag from every device.", params: ["tag"], query: ["platform"]),
        ],
        "/v3/tags/{tag}/registration_ids/{registration_id}": ["get": jpushOp("Whether a device has a tag.", response: "JPushResult", params: ["tag", "registration_id"])],
        "/v3/aliases/{alias}": [
            "get": jpushOp("The devices with an alias (at most 10).", response: "JPushRegistrationIDs", params: ["alias"], query: ["platform"]),
            "delete": jpushOp("Clear an alias on every device that has it.", params: ["alias"], query: ["platform"]),
        ],
        "/v3/received": ["get": jpushOp("Delivery counts per msg_id.", response: "JPushReceivedList", query: ["msg_ids"])],
        "/v3/received/detail": ["get": jpushOp("Delivery counts per msg_id, with ios_clicked.", response: "JPushReceivedList", query: ["msg_ids"])],
        "/v3/messages": ["get": jpushOp("Message statistics per msg_id (ios: apns_target, apns_sent, click).", response: "JPushMessageList", query: ["msg_ids"])],
        "/v3/messages/detail": ["get": jpushOp("Message statistics with failures.", response: "JPushMessageList", query: ["msg_ids"])],
    ]

    static let nullableInteger: JSON = ["type": ["integer", "null"]]
    static let anyObject: JSON = ["type": "object"]

    static let jpushSchemas: [String: JSON] = [
        "JPushError": object(["error": object(["code": integer, "message": string], required: ["code", "message"])], required: ["error"]),
        "JPushKeysInput": object(["appKey": string, "masterSecret": string], required: ["appKey", "masterSecret"]),
        "JPushKeys": object(["appKey": string, "masterSecretHint": nullableString, "updatedAt": time]),
        "JPushPush": object([
            "platform": ["oneOf": [["const": "all"], strings]],
            "audience": ["oneOf": [["const": "all"], object(["tag": strings, "tag_and": strings, "tag_not": strings, "alias": strings, "registration_id": strings])]],
            "notification": object(["alert": string, "ios": object([
                "alert": ["oneOf": [string, anyObject]], "sound": ["oneOf": [string, object(["name": string, "critical": integer, "volume": ["type": "number"]])]],
                "badge": ["oneOf": [integer, ["type": "string", "pattern": "^([+-]?[0-9]+)?$"]]], "content-available": ["type": ["boolean", "integer"]],
                "mutable-content": ["type": ["boolean", "integer"]], "category": string, "thread-id": string,
                "interruption-level": ["enum": ["active", "critical", "passive", "time-sensitive"]], "extras": anyObject])]),
            "message": object(["msg_content": string, "title": string, "content_type": string, "extras": anyObject], required: ["msg_content"]),
            "options": object(["sendno": integer, "time_to_live": integer, "override_msg_id": integer, "apns_production": ["type": "boolean"],
                               "apns_collapse_id": string, "big_push_duration": integer]),
            "cid": string,
        ], required: ["platform", "audience"]),
        "JPushPushResult": object(["sendno": string, "msg_id": ["type": "string", "pattern": "^[0-9]+$"], "ignored": strings], required: ["sendno", "msg_id"]),
        "JPushCidList": object(["cidlist": strings]),
        "JPushSchedule": object(["schedule_id": string, "name": string, "enabled": ["type": "boolean"],
                                 "trigger": object(["single": object(["time": ["type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$"]])]),
                                 "push": ref("JPushPush")]),
        "JPushScheduleCreated": object(["schedule_id": string, "name": string]),
        "JPushScheduleList": object(["total_count": integer, "total_pages": integer, "page": integer, "schedules": ["type": "array", "items": ref("JPushSchedule")]]),
        "JPushScheduleMsgIDs": object(["count": integer, "msgids": strings]),
        "JPushDevice": object(["tags": strings, "alias": nullableString, "mobile": nullableString]),
        "JPushDeviceUpdate": object(["tags": ["oneOf": [["const": ""], object(["add": strings, "remove": strings])]], "alias": string, "mobile": string]),
        "JPushRegistrationIDs": object(["registration_ids": strings]),
        "JPushDeviceStatus": ["type": "object", "additionalProperties": object(["online": ["type": "boolean"], "last_online_time": string])],
        "JPushTagList": object(["tags": strings]),
        "JPushTagUpdate": object(["registration_ids": object(["add": strings, "remove": strings])], required: ["registration_ids"]),
        "JPushResult": object(["result": ["type": "boolean"]]),
        "JPushReceivedList": ["type": "array", "items": object([
            "msg_id": integer, "ios_apns_sent": integer, "ios_apns_received": nullableInteger, "ios_msg_received": nullableInteger,
            "ios_clicked": integer, "android_received": nullableInteger, "wp_mpns_sent": nullableInteger])],
        "JPushMessageList": ["type": "array", "items": object(["msg_id": integer, "ios": object([
            "apns_target": integer, "apns_sent": integer, "apns_received": nullableInteger, "click": integer, "target": integer,
            "received": nullableInteger, "apns_failed": integer, "failures": anyObject])])],
    ]

    static let jpushSecuritySchemes: [String: JSON] = [
        "jpushBasic": ["type": "http", "scheme": "basic", "description": "JPush's appKey:masterSecret (PUT /v1/apps/{appId}/jpush), or <Herald app id>:<master key>."],
    ]

}
