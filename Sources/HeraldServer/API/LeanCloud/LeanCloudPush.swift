import Foundation

/// `POST /1.1/push` as a Herald push document (`PushInput`): the push is an ordinary Herald push underneath,
/// with its status, stats and console. Every field LeanCloud documents for iOS is translated; the parts that only
/// concern other platforms are refused by name, since silently dropping them would hide that those devices get
/// nothing from Herald.
enum LeanCloudPush {
    static let bodyFields: Set<String> = ["where", "channels", "data", "prod", "topic", "apns_team_id", "push_time", "expiration_time",
                                          "expiration_interval", "notification_id", "req_id", "flow_control"]
    /// Android / vendor channel parts of a LeanCloud push.
    static let otherPlatforms: Set<String> = ["android", "mi", "hms", "huawei", "mz", "meizu", "vivo", "oppo", "fcm", "honor", "wns"]
    static let apsNames: [String: String] = [
        "content-available": "contentAvailable", "mutable-content": "mutableContent", "category": "category",
        "thread-id": "threadId", "sound": "sound", "interruption-level": "interruptionLevel",
        "relevance-score": "relevanceScore", "target-content-id": "targetContentId",
    ]
    /// LeanCloud's alert keys are Apple's; Herald's content names them its own way.
    static let alertNames = PushContent.alertFieldsByAPNsName

    /// `productionHeader` is `X-LC-Prod`: without `prod`, a value other than 1 means development (LeanCloud's rule).
    static func document(_ object: [String: JSON], productionHeader: String?) throws -> [String: JSON] {
        let body = BodyReader(object)
        if body.has("cql") { throw ServiceError.invalid("cql", "cql is not supported: send the query as where (a JSON object).") }
        if body.has("_notificationChannel") { throw ServiceError.invalid("_notificationChannel", "_notificationChannel is for Android; Herald delivers to Apple devices only.") }
        try body.rejectUnknown(bodyFields)

        let query = try object["where"].map { try LeanCloudWhere.parse($0) }
        let channels: [String]?
        switch object["channels"] {
        case nil, .null?: channels = nil
        case .string(let s)?: channels = [s]
        default: channels = try body.stringArray("channels", maxCount: 100, maxLength: 64)
        }
        var target = try LeanCloudAudience.target(where: query, channels: channels)
        let prod = try body.string("prod", maxLength: 8) ?? (productionHeader.map { $0 == "1" ? "prod" : "dev" })
        switch prod {
        case "dev"?: target["environment"] = "sandbox"
        case "prod"?: target["environment"] = "production"
        case nil: break
        default: throw ServiceError.invalid("prod", "prod must be \"dev\" or \"prod\".")
        }

        guard let data = object["data"]?.objectValue else { throw ServiceError.missing("data", "data (the message) is required, as an object.") }
        let (content, options) = try self.content(data)
        var opts = options
        if let topic = try body.string("topic", maxLength: 255) { opts["topic"] = .string(topic) }
        _ = try body.string("apns_team_id", maxLength: 10)   // the credential's team id signs Herald's pushes
        if let time = try body.date("push_time") { opts["sendAt"] = .string(ISO8601.string(time)) }
        if body.has("expiration_time") && body.has("expiration_interval") {
            throw ServiceError.invalid("expiration_interval", "Set expiration_time or expiration_interval, not both.")
        }
        if let time = try body.date("expiration_time") { opts["expiration"] = .string(ISO8601.string(time)) }
        if let seconds = try body.int("expiration_interval", range: 0...2_592_000) {
            // LeanCloud counts the interval from push_time when there is one.
            if let sendAt = try body.date("push_time") {
                opts["expiration"] = .string(ISO8601.string(sendAt.addingTimeInterval(Double(seconds))))
            } else {
                opts["ttl"] = .int(seconds)
            }
        }
        // LeanCloud's minimum rate is 1000 devices per second; lower values mean 1000 there too.
        if let rate = try body.int("flow_control", range: 0...10_000_000) { opts["rateLimit"] = .int(max(rate, 1000)) }
        var document: [String: JSON] = ["target": .object(target), "content": .object(content)]
        if !opts.isEmpty { document["options"] = .object(opts) }
        if let key = try body.string("req_id", maxLength: 64) { document["idempotencyKey"] = .string("leancloud:req:" + key) }
        _ = try body.string("notification_id", maxLength: 64)   // statistics grouping; every Herald push has its own record
        return document
    }

    /// `data` (or its `ios` block, which wins) as Herald's content and options.
    static func content(_ data: [String: JSON]) throws -> (content: [String: JSON], options: [String: JSON]) {
        for key in data.keys.sorted() where otherPlatforms.contains(key) {
            throw ServiceError.invalid("data.\(key)", "data.\(key) is for another platform; Herald delivers to Apple devices only. Send only the iOS part (data or data.ios).")
        }
        if data["silent"] != nil { throw ServiceError.invalid("data.silent", "data.silent is Android's; for a silent iOS push send \"content-available\": 1.") }
        var source = data
        if let ios = data["ios"] {
            guard let block = ios.objectValue else { throw ServiceError.invalid("data.ios", "data.ios must be an object.") }
            source = block
        }
        // The raw form: {"aps": {...}, custom keys}.
        if let aps = source["aps"]?.objectValue {
            source["aps"] = nil
            source.merge(aps) { custom, _ in custom }
        }
        var content: [String: JSON] = [:], options: [String: JSON] = [:], custom: [String: JSON] = [:]
        for key in source.keys.sorted() {
            let value = source[key]!
            switch key {
            case "alert":
                if let o = value.objectValue {
                    var alert: [String: JSON] = [:]
                    for (k, v) in o {
                        guard let name = alertNames[k] else {
                            throw ServiceError.invalid("data.alert.\(k)", "data.alert.\(k) is not supported; alert takes \(alertNames.keys.sorted().joined(separator: ", ")).")
                        }
                        alert[name] = v
                    }
                    content["alert"] = .object(alert)
                } else {
                    content["alert"] = value
                }
            case "title":
                continue   // merged into a string alert below
            case "badge":
                if value.stringValue == "Increment" { content["badge"] = ["increment": 1] } else { content["badge"] = value }
            case "collapse-id": options["collapseId"] = value
            case "apns-priority": options["priority"] = value
            case "apns-push-type": options["pushType"] = value
            case "content-available", "mutable-content":
                content[apsNames[key]!] = .bool(value.boolValue ?? (value.intValue == 1))
            case "url-args", "action-loc-key", "summary-arg", "summary-arg-count":
                throw ServiceError.invalid("data.\(key)", "data.\(key) is not supported by Herald (legacy or Safari-only APNs field).")
            case "ios":
                continue
            default:
                if let name = apsNames[key] { content[name] = value } else { custom[key] = value }
            }
        }
        if let title = source["title"] {
            if let body = content["alert"]?.stringValue { content["alert"] = ["title": title, "body": .string(body)] } else if content["alert"] == nil { content["alert"] = ["title": title] } else { custom["title"] = title }
        }
        if !custom.isEmpty { content["data"] = .object(custom) }
        return (content, options)
    }
}
