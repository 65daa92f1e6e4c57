import Foundation
import HeraldHTTP
import HeraldStore

/// Wire compatibility with LeanCloud's push REST API (closing 2027-01-12), so an app and a backend can move
/// by changing the base URL: `POST /1.1/installations` and `POST /1.1/push`. Keys travel as LeanCloud
/// sends them (`X-LC-Key: <client key>` or `X-LC-Key: <master key>,master`) or as a bearer token. Each
/// request is translated into Herald's own input (`InstallationInput`, `PushInput`) and handled by the same
/// services, with the same rules; errors name Herald's fields.
struct LeanCloudCompatAPI {
    let installations: InstallationsService
    let pushes: PushesService

    var routes: [Route] {
        [
            Route("POST", "/1.1/installations", .client, "LeanCloud-compatible installation save (deviceType, deviceToken, installationId, channels, ...).", handler: saveInstallation),
            Route("POST", "/1.1/push", .master, "LeanCloud-compatible push (where, channels, data, prod, push_time, expiration_*, req_id, flow_control).", handler: push),
        ]
    }

    static let installationFieldMap: [String: String] = [
        "deviceToken": "deviceToken", "installationId": "installationId", "channels": "tags", "timeZone": "timeZone",
        "badge": "badge", "apnsTopic": "topic", "localeIdentifier": "locale", "appVersion": "appVersion",
    ]
    /// LeanCloud fields with no Herald meaning, accepted and dropped.
    static let ignoredInstallationFields: Set<String> = ["deviceType", "apnsTeamId", "deviceProfile", "valid", "objectId", "createdAt", "updatedAt", "ACL"]

    func saveInstallation(_ ctx: RequestContext) async throws -> HTTPResponse {
        let body = try ctx.jsonObject()
        if let type = body["deviceType"]?.stringValue, type != "ios" {
            throw ServiceError.invalid("deviceType", "Herald delivers to Apple devices only; deviceType must be \"ios\".")
        }
        var translated: [String: JSON] = [:]
        var properties: [String: JSON] = [:]
        for (key, value) in body where !Self.ignoredInstallationFields.contains(key) {
            if let mapped = Self.installationFieldMap[key] {
                translated[mapped] = value
            } else {
                properties[key] = value   // LeanCloud custom columns become custom properties
            }
        }
        if !properties.isEmpty { translated["properties"] = .object(properties) }
        let draft = try InstallationInput.parse(BodyReader(translated))
        let (record, created) = try await installations.register(appID: try ctx.appID, draft)
        return .json(created ? 201 : 200, ["objectId": .string(record.id), "createdAt": ISO8601.json(record.createdAt),
                                           "updatedAt": ISO8601.json(record.updatedAt)])
    }

    static let apsNames: [String: String] = [
        "content-available": "contentAvailable", "mutable-content": "mutableContent", "category": "category",
        "thread-id": "threadId", "sound": "sound", "interruption-level": "interruptionLevel",
        "relevance-score": "relevanceScore", "target-content-id": "targetContentId",
    ]
    static let alertNames: [String: String] = [
        "title": "title", "subtitle": "subtitle", "body": "body", "launch-image": "launchImage",
        "title-loc-key": "titleLocKey", "title-loc-args": "titleLocArgs", "subtitle-loc-key": "subtitleLocKey",
        "subtitle-loc-args": "subtitleLocArgs", "loc-key": "locKey", "loc-args": "locArgs",
    ]

    func push(_ ctx: RequestContext) async throws -> HTTPResponse {
        let body = BodyReader(try ctx.jsonObject())
        try body.rejectUnknown(["where", "channels", "data", "prod", "topic", "push_time", "expiration_interval", "expiration_time",
                                "req_id", "flow_control", "notification_id", "apns_team_id"])
        var target: [String: JSON] = [:]
        if let channels = body.object["channels"] { target["tags"] = channels }
        if let wherePart = try body.object("where") {
            for (key, value) in wherePart.object {
                let values: JSON
                if let list = value["$in"] { values = list } else if case .string = value { values = [value] } else {
                    throw ServiceError.invalid("where.\(key)", "where.\(key) must be a value or {\"$in\": [...]}.")
                }
                switch key {
                case "channels": target["tags"] = values
                case "deviceToken": target["tokens"] = values
                case "installationId", "objectId": target["installationIds"] = values
                case "deviceType":
                    guard values == ["ios"] else { throw ServiceError.invalid("where.deviceType", "Herald delivers to iOS installations only.") }
                default:
                    throw ServiceError.invalid("where.\(key)", "where.\(key) is not supported: query by channels, deviceToken, installationId or objectId (use Herald's /v1/pushes filter for more).")
                }
            }
        }
        if target.isEmpty { target["all"] = true }
        switch try body.string("prod", maxLength: 8) {
        case "dev"?: target["environment"] = "sandbox"
        case "prod"?: target["environment"] = "production"
        case nil: break
        default: throw ServiceError.invalid("prod", "prod must be \"dev\" or \"prod\".")
        }

        guard let data = try body.object("data") else { throw ServiceError.missing("data") }
        var content: [String: JSON] = [:]
        var options: [String: JSON] = [:]
        var custom: [String: JSON] = [:]
        for (key, value) in data.object {
            switch key {
            case "alert":
                if let o = value.objectValue {
                    var alert: [String: JSON] = [:]
                    for (k, v) in o {
                        guard let name = Self.alertNames[k] else { throw ServiceError.invalid("data.alert.\(k)", "data.alert.\(k) is not an APNs alert field.") }
                        alert[name] = v
                    }
                    content["alert"] = .object(alert)
                } else {
                    content["alert"] = value
                }
            case "badge":
                if value.stringValue?.lowercased() == "increment" { content["badge"] = ["increment": 1] } else { content["badge"] = value }
            case "collapse-id": options["collapseId"] = value
            case "apns-priority": options["priority"] = value
            case "content-available", "mutable-content":
                content[Self.apsNames[key]!] = .bool(value.boolValue ?? (value.intValue == 1))
            default:
                if let name = Self.apsNames[key] { content[name] = value } else { custom[key] = value }
            }
        }
        if !custom.isEmpty { content["data"] = .object(custom) }
        if let topic = body.object["topic"] { options["topic"] = topic }
        if let time = body.object["push_time"] { options["sendAt"] = time }
        if let interval = body.object["expiration_interval"] { options["ttl"] = interval }
        if let time = body.object["expiration_time"] { options["expiration"] = time }
        if let rate = body.object["flow_control"] { options["rateLimit"] = rate }
        var translated: [String: JSON] = ["target": .object(target), "content": .object(content)]
        if !options.isEmpty { translated["options"] = .object(options) }
        if let requestID = body.object["req_id"] { translated["idempotencyKey"] = requestID }

        let accepted = try await pushes.create(appID: try ctx.appID, try PushInput(translated, now: ctx.now))
        return .json(200, ["objectId": .string(accepted.push.push.id), "createdAt": ISO8601.json(accepted.push.push.createdAt)])
    }
}
