/// A JPush `POST /v3/push` body as Herald's push document (the `POST /v1/pushes` body), so it is
/// validated, stored and delivered exactly as Herald's own pushes are.
///
/// - `notification.ios` becomes `aps` (`alert`, `sound`, `badge` `N`/`+N`/`-N`, `content-available`,
///   `mutable-content`, `category`, `thread-id`, `interruption-level`); its `extras` go to the payload's
///   top level as JPush puts them, beside `_j_msgid` (the msg_id, as JPush adds it).
/// - `message` (JPush's in-app message, which JPush sends over its own connection) becomes a background
///   push (`content-available: 1`) whose payload carries `message: {content, title, content_type, extras}`,
///   the keys JPush's iOS SDK hands to apps.
/// - Parts for other platforms (android, hmos, quickapp, winphone, voip, sms_message) and Android-only
///   options are dropped and listed in `ignored`; a push that targets no iOS device is refused.
struct JPushPushTranslation {
    var document: [String: JSON]
    /// The push's msg_id, which is also its Herald push id.
    var msgID: Int
    /// `options.sendno`, echoed in the answer ("0" when absent).
    var sendno: String
    /// `options.big_push_duration` in minutes: the push is spread over it (a rate set once the audience is counted).
    var spreadMinutes: Int?
    /// What was accepted but has no meaning for Herald, as JPush field paths.
    var ignored: [String]

    static let topLevel: Set<String> = ["platform", "audience", "notification", "message", "options", "cid", "sms_message", "callback", "notification_3rd", "inapp_message"]
    static let otherPlatforms: Set<String> = ["android", "winphone", "hmos", "quickapp", "voip"]
    static let iosKeys: Set<String> = ["alert", "sound", "badge", "content-available", "mutable-content", "category", "thread-id",
                                       "interruption-level", "extras", "sound_disable"]
    static let optionKeys: Set<String> = ["sendno", "time_to_live", "override_msg_id", "apns_production", "apns_collapse_id", "big_push_duration"]

    /// `msgID` is the push's msg_id (it goes into the payload as `_j_msgid`).
    init(_ body: [String: JSON], msgID: Int) throws {
        self.msgID = msgID
        ignored = []
        for key in body.keys.sorted() where !Self.topLevel.contains(key) {
            throw JPushErrors.error(400, 1003, "\(key) is not a JPush push field; send platform, audience, notification, message, options or cid.")
        }
        for key in ["sms_message", "callback", "notification_3rd", "inapp_message"] where body[key] != nil { ignored.append(key) }
        try Self.checkPlatform(body["platform"])
        var target = try JPushAudience.target(body["audience"])

        let notification = try Self.object(body, "notification")
        let message = try Self.object(body, "message")
        guard notification != nil || message != nil else {
            throw JPushErrors.error(400, 1002, "notification or message is required.")
        }
        var content: [String: JSON] = [:]
        var data: [String: JSON] = ["_j_msgid": .int(msgID)]
        if let notification {
            for key in notification.keys.sorted() {
                if Self.otherPlatforms.contains(key) { ignored.append("notification.\(key)"); continue }
                guard key == "alert" || key == "ios" else {
                    throw JPushErrors.error(400, 1003, "notification.\(key) is not a JPush notification field.")
                }
            }
            let ios = try Self.object(notification, "ios", path: "notification.ios") ?? [:]
            if let alert = notification["alert"], alert.stringValue?.isEmpty != true { content["alert"] = try Self.alert(alert, field: "notification.alert") }
            try Self.translate(ios: ios, into: &content, data: &data)
            if notification["ios"] == nil && notification["alert"] == nil {
                // A notification for other platforms only; with a message it still reaches iOS as that message.
                if message == nil { throw JPushErrors.error(400, 1003, "notification has no alert and no ios part: nothing to show on iOS (Herald delivers to iOS only).") }
            }
        }
        if let message {
            guard let text = message["msg_content"]?.stringValue, !text.isEmpty else {
                throw JPushErrors.error(400, 1002, "message.msg_content is required (a non-empty string).")
            }
            var delivered: [String: JSON] = ["content": .string(text)]
            for (from, to) in [("title", "title"), ("content_type", "content_type")] {
                if let v = message[from], !v.isNull {
                    guard v.stringValue != nil else { throw JPushErrors.error(400, 1003, "message.\(from) must be a string.") }
                    delivered[to] = v
                }
            }
            if let extras = message["extras"], !extras.isNull {
                guard extras.objectValue != nil else { throw JPushErrors.error(400, 1003, "message.extras must be an object.") }
                delivered["extras"] = extras
            }
            data["message"] = .object(delivered)
            content["contentAvailable"] = true
        }
        content["data"] = .object(data)

        var options: [String: JSON] = [:]
        sendno = "0"
        if let o = try Self.object(body, "options") {
            for key in o.keys.sorted() where !Self.optionKeys.contains(key) { ignored.append("options.\(key)") }
            if let n = o["sendno"], !n.isNull {
                guard let v = n.intValue else { throw JPushErrors.error(400, 1003, "options.sendno must be an integer.") }
                sendno = String(v)
            }
            if let ttl = o["time_to_live"], !ttl.isNull {
                guard let v = ttl.intValue, (0...864_000).contains(v) else { throw JPushErrors.error(400, 1003, "options.time_to_live must be seconds in 0...864000 (10 days).") }
                options["ttl"] = .int(v)
            }
            if o["override_msg_id"] != nil { ignored.append("options.override_msg_id") }
            if let production = o["apns_production"], !production.isNull {
                guard let p = production.boolValue ?? production.intValue.map({ $0 != 0 }) else {
                    throw JPushErrors.error(400, 1003, "options.apns_production must be true or false.")
                }
                target["environment"] = p ? "production" : "sandbox"
            }
            if let collapse = o["apns_collapse_id"], !collapse.isNull {
                guard let c = collapse.stringValue, !c.isEmpty, c.utf8.count <= 64 else {
                    throw JPushErrors.error(400, 1003, "options.apns_collapse_id must be a string of 1 to 64 bytes.")
                }
                options["collapseId"] = collapse
            }
            if let minutes = o["big_push_duration"], !minutes.isNull {
                guard let m = minutes.intValue, (0...1400).contains(m) else { throw JPushErrors.error(400, 1003, "options.big_push_duration must be minutes in 0...1400.") }
                if m > 0 { spreadMinutes = m }
            }
        }
        var document: [String: JSON] = ["target": .object(target), "content": .object(content)]
        if !options.isEmpty { document["options"] = .object(options) }
        if let cid = body["cid"], !cid.isNull {
            guard let c = cid.stringValue, !c.isEmpty, c.utf8.count <= 128 else { throw JPushErrors.error(400, 1003, "cid must be a string of 1 to 128 bytes.") }
            document["idempotencyKey"] = .string("jpush:" + c)
        }
        self.document = document
    }

    /// `all`, or a list that contains `ios`; a push for other platforms only reaches nobody Herald knows.
    static func checkPlatform(_ platform: JSON?) throws {
        guard let platform else { throw JPushErrors.error(400, 1002, "platform is required: \"all\" or a list such as [\"ios\"].") }
        if platform.stringValue == "all" || platform.stringValue == "ios" { return }
        guard let list = platform.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
            throw JPushErrors.error(400, 1003, "platform must be \"all\" or a list of platforms such as [\"ios\"].")
        }
        guard list.contains("ios") else {
            throw JPushErrors.error(400, 1003, "platform does not include ios: Herald delivers to iOS devices only, so this push would reach nobody.")
        }
    }

    static func translate(ios: [String: JSON], into content: inout [String: JSON], data: inout [String: JSON]) throws {
        for key in ios.keys.sorted() where !iosKeys.contains(key) {
            throw JPushErrors.error(400, 1003, "notification.ios.\(key) is not a JPush iOS field.")
        }
        if let alert = ios["alert"], !alert.isNull, alert.stringValue?.isEmpty != true { content["alert"] = try Self.alert(alert, field: "notification.ios.alert") }
        if let sound = ios["sound"], !sound.isNull, ios["sound_disable"]?.boolValue != true {
            content["sound"] = try Self.sound(sound)
        }
        if let badge = ios["badge"], !badge.isNull { content["badge"] = try Self.badge(badge) }
        for (key, name) in [("content-available", "contentAvailable"), ("mutable-content", "mutableContent")] {
            guard let v = ios[key], !v.isNull else { continue }
            guard let on = v.boolValue ?? v.intValue.map({ $0 != 0 }) else { throw JPushErrors.error(400, 1003, "notification.ios.\(key) must be true or false.") }
            if on { content[name] = true }
        }
        for (key, name) in [("category", "category"), ("thread-id", "threadId"), ("interruption-level", "interruptionLevel")] {
            guard let v = ios[key], !v.isNull else { continue }
            guard v.stringValue != nil else { throw JPushErrors.error(400, 1003, "notification.ios.\(key) must be a string.") }
            content[name] = v
        }
        if let extras = ios["extras"], !extras.isNull {
            guard let fields = extras.objectValue else { throw JPushErrors.error(400, 1003, "notification.ios.extras must be an object.") }
            for key in ["aps", "herald", "_j_msgid", "message"] where fields[key] != nil {
                throw JPushErrors.error(400, 1003, "notification.ios.extras must not contain \"\(key)\": Herald writes it.")
            }
            data.merge(fields) { _, extra in extra }
        }
    }

    /// A string, or an Apple alert dictionary (`title`, `loc-key`, ...) in Herald's field names.
    static func alert(_ value: JSON, field: String) throws -> JSON {
        if value.stringValue != nil { return value }
        guard let o = value.objectValue else { throw JPushErrors.error(400, 1003, "\(field) must be a string or an APNs alert object.") }
        var out: [String: JSON] = [:]
        for (key, v) in o {
            guard let name = PushContent.alertFieldsByAPNsName[key] else {
                throw JPushErrors.error(400, 1003, "\(field).\(key) is not an APNs alert field.")
            }
            out[name] = v
        }
        return .object(out)
    }

    /// A name, or `{name, critical, volume}` (JPush sends `critical` as 0/1).
    static func sound(_ value: JSON) throws -> JSON {
        if let name = value.stringValue { return name.isEmpty ? .null : value }
        guard var o = value.objectValue else { throw JPushErrors.error(400, 1003, "notification.ios.sound must be a string or {name, critical, volume}.") }
        if let c = o["critical"], let n = c.intValue { o["critical"] = .bool(n != 0) }
        return .object(o)
    }

    /// JPush's badge: a number sets it; a string `N`, `+N`, `-N` sets, raises or lowers it (per device, from
    /// the badge Herald keeps); `""` and `0` clear it; `auto` (older SDKs) raises it by one.
    static func badge(_ value: JSON) throws -> JSON {
        let bad = JPushErrors.error(400, 1003, "notification.ios.badge must be a number, or a string \"N\", \"+N\" or \"-N\" with N in 0...99999.")
        if let n = value.intValue { guard (0...99_999).contains(n) else { throw bad }; return .int(n) }
        guard let text = value.stringValue else { throw bad }
        if text.isEmpty { return 0 }
        if text == "auto" { return ["increment": 1] }
        let sign = text.first!, digits = (sign == "+" || sign == "-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let n = Int(digits), (0...99_999).contains(n) else { throw bad }
        switch sign {
        case "+": return ["increment": .int(n)]
        case "-": return ["decrement": .int(n)]
        default: return .int(n)
        }
    }

    static func object(_ body: [String: JSON], _ key: String, path: String? = nil) throws -> [String: JSON]? {
        guard let v = body[key], !v.isNull else { return nil }
        guard let o = v.objectValue else { throw JPushErrors.error(400, 1003, "\(path ?? key) must be an object.") }
        return o
    }
}
