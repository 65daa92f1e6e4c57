import Foundation
import APNSCore

/// The message flags shared by `herald send`, `herald push` and `herald sim push`, and how they turn
/// into a payload and request options.
enum MessageOptions {
    static let options: [Option] = [
        .value("alert", "text", "Alert text (a plain string alert)."),
        .value("title", "text", "Alert title."),
        .value("subtitle", "text", "Alert subtitle."),
        .value("body", "text", "Alert body."),
        .value("loc-key", "key", "Localized body key (with --loc-arg)."),
        .value("loc-arg", "text", "Argument for --loc-key.", repeatable: true),
        .value("badge", "n", "Badge number (0 removes the badge)."),
        .value("sound", "name", "Sound file name, or \"default\"."),
        .flag("critical", "Make --sound a critical alert sound."),
        .value("category", "id", "Notification category (actionable notifications)."),
        .value("thread-id", "id", "Thread identifier for grouping."),
        .flag("content-available", "Set content-available: 1 (background update)."),
        .flag("mutable-content", "Set mutable-content: 1 (service extension may modify)."),
        .value("interruption-level", "level", "passive, active, time-sensitive or critical."),
        .value("filter-criteria", "text", "Focus filter criteria (aps.filter-criteria)."),
        .flag("content-changed", "Set content-changed: true (push type widgets: reload the widgets)."),
        .value("event", "start|update|end", "Live Activity event; the push type becomes liveactivity (needs --timestamp)."),
        .value("timestamp", "unix-seconds|now", "Live Activity timestamp: when this update was made (the newest wins)."),
        .value("content-state", "json", "Live Activity content-state as a JSON object (the app's ContentState)."),
        .value("dismissal-date", "unix-seconds", "When an ended Live Activity leaves the Lock Screen."),
        .value("stale-date", "unix-seconds", "When a Live Activity becomes stale."),
        .value("attributes-type", "name", "Live Activity start: the ActivityAttributes type name."),
        .value("attributes", "json", "Live Activity start: the static attributes as a JSON object."),
        .value("data", "json", "Custom top-level keys as a JSON object, e.g. '{\"url\":\"https://...\"}'."),
        .value("payload", "file|-", "The whole payload as JSON from a file or standard input (instead of the flags above)."),
        .value("push-type", "type", "alert, background, voip, complication, fileprovider, mdm, location, liveactivity, pushtotalk, widgets, controls (derived when unset)."),
        .value("priority", "10|5|1", "Delivery priority (derived when unset: background gets 5)."),
        .value("expiration", "unix-seconds", "When APNs stops trying (0: deliver once or drop)."),
        .value("collapse-id", "id", "Coalesce notifications with the same id (64 bytes at most)."),
        .value("apns-id", "uuid", "The notification's apns-id (canonical UUID)."),
    ]

    private static let contentFlags = ["alert", "title", "subtitle", "body", "loc-key", "loc-arg", "badge", "sound", "category",
                                       "thread-id", "content-available", "mutable-content", "interruption-level", "filter-criteria",
                                       "content-changed", "event", "timestamp", "content-state", "dismissal-date", "stale-date",
                                       "attributes-type", "attributes", "data"]

    /// The encoded payload, built once and shared by every token.
    static func payload(_ args: ParsedArguments, stdin: () -> [UInt8] = { [UInt8](FileHandle.standardInput.readDataToEndOfFile()) }) throws -> APNSEncodedPayload {
        if let source = args.value("payload") {
            if let clash = contentFlags.first(where: { args.value($0) != nil || args.has($0) }) {
                throw UsageError("--payload gives the whole payload; drop --\(clash) or put it in the JSON")
            }
            let bytes: [UInt8]
            if source == "-" {
                bytes = stdin()
            } else {
                guard let data = FileManager.default.contents(atPath: source) else {
                    throw UsageError("cannot read the payload file \(source)")
                }
                bytes = [UInt8](data)
            }
            do {
                return try APNSEncodedPayload(validatingBytes: bytes)
            } catch {
                throw UsageError("the payload is not a valid APNs payload: \(error)")
            }
        }
        return try model(args).encoded()
    }

    static func model(_ args: ParsedArguments, now: () -> Date = Date.init) throws -> APNSPayload {
        var aps = APNSAps()
        let hasContent = ["title", "subtitle", "body", "loc-key"].contains { args.value($0) != nil }
        if hasContent {
            var content = APNSAlertContent(title: args.value("title"), subtitle: args.value("subtitle"), body: args.value("body"))
            if let key = args.value("loc-key") {
                content.locKey = key
                content.locArgs = args.all("loc-arg").isEmpty ? nil : args.all("loc-arg")
            }
            if let text = args.value("alert") { content.body = content.body ?? text }
            aps.alert = .content(content)
        } else if let text = args.value("alert") {
            aps.alert = .text(text)
        }
        aps.badge = try args.int("badge")
        if let sound = args.value("sound") {
            aps.sound = args.has("critical") ? .critical(APNSCriticalSound(name: sound)) : .named(sound)
        }
        aps.category = args.value("category")
        aps.threadID = args.value("thread-id")
        aps.contentAvailable = args.has("content-available")
        aps.mutableContent = args.has("mutable-content")
        if let level = args.value("interruption-level") {
            guard ["passive", "active", "time-sensitive", "critical"].contains(level) else {
                throw UsageError("--interruption-level must be passive, active, time-sensitive or critical, got \"\(level)\"")
            }
            aps.interruptionLevel = APNSInterruptionLevel(rawValue: level)
        }
        aps.filterCriteria = args.value("filter-criteria")
        aps.contentChanged = args.has("content-changed")
        if let event = args.value("event") {
            aps.event = APNSLiveActivityEvent(rawValue: event)
            guard aps.event?.isKnown == true else {
                throw UsageError("--event must be \(APNSLiveActivityEvent.allKnown.map(\.rawValue).joined(separator: ", ")), got \"\(event)\"")
            }
        }
        if args.value("timestamp") == "now" {
            aps.timestamp = Int(now().timeIntervalSince1970)
        } else {
            aps.timestamp = try unixSeconds(args, "timestamp")
        }
        aps.contentState = try jsonObject(args, "content-state")
        aps.dismissalDate = try unixSeconds(args, "dismissal-date")
        aps.staleDate = try unixSeconds(args, "stale-date")
        aps.attributesType = args.value("attributes-type")
        aps.attributes = try jsonObject(args, "attributes")
        let custom = try jsonObject(args, "data") ?? JSONObject()
        if custom.contains("aps") { throw UsageError("--data must not contain \"aps\"; use the message flags or --payload") }
        if aps.isEmpty && custom.isEmpty {
            throw UsageError("nothing to send: give --alert, --title/--body, --badge, --sound, --content-available, --data or --payload")
        }
        return APNSPayload(aps: aps, custom: custom)
    }

    private static func jsonObject(_ args: ParsedArguments, _ name: String) throws -> JSONObject? {
        guard let text = args.value(name) else { return nil }
        let value: JSONValue
        do { value = try JSONValue(parsing: text) } catch { throw UsageError("--\(name) is not valid JSON: \(error)") }
        guard let object = value.objectValue else { throw UsageError("--\(name) must be a JSON object, like '{\"key\":\"value\"}'") }
        return object
    }

    private static func unixSeconds(_ args: ParsedArguments, _ name: String) throws -> Int? {
        guard let text = args.value(name) else { return nil }
        guard let seconds = Int(text), seconds >= 0 else { throw UsageError("--\(name) must be UNIX seconds, got \"\(text)\"") }
        return seconds
    }

    /// Builds the notification for one token with the shared payload and request options.
    static func requestOptions(_ args: ParsedArguments) throws -> RequestOptions {
        var o = RequestOptions()
        if let t = args.value("push-type") {
            let type = APNSPushType(rawValue: t)
            guard APNSPushType.allKnown.contains(type) else {
                throw UsageError("--push-type \(t) is not an APNs push type; use one of \(APNSPushType.allKnown.map(\.rawValue).joined(separator: ", "))")
            }
            o.pushType = type
        }
        if let p = args.value("priority") {
            guard let priority = APNSPriority(headerValue: p) else { throw UsageError("--priority must be 10, 5 or 1, got \"\(p)\"") }
            o.priority = priority
        }
        if let e = args.value("expiration") {
            guard let seconds = Int(e), seconds >= 0 else { throw UsageError("--expiration must be UNIX seconds (0 or a time), got \"\(e)\"") }
            o.expiration = APNSExpiration(unixSeconds: seconds)
        }
        o.collapseID = args.value("collapse-id")
        if let id = args.value("apns-id") {
            guard let uuid = UUID(uuidString: id) else { throw UsageError("--apns-id must be a UUID like 123e4567-e89b-12d3-a456-426614174000") }
            o.apnsID = uuid
        }
        return o
    }

    struct RequestOptions {
        var pushType: APNSPushType?
        var priority: APNSPriority?
        var expiration: APNSExpiration?
        var collapseID: String?
        var apnsID: UUID?

        func notification(token: DeviceToken, topic: String, payload: APNSEncodedPayload) -> APNSNotification {
            APNSNotification(deviceToken: token, topic: topic, encodedPayload: payload, pushType: pushType, priority: priority,
                             expiration: expiration, collapseID: collapseID, apnsID: apnsID)
        }
    }
}
