import APNSCore
import Foundation
import HeraldStore

/// What a push says: the APNs `aps` fields, per-locale alert variants, the badge rule and custom data.
struct PushContent: Sendable {
    var alert: JSON?
    /// Locale key (as sent, e.g. "fr" or "pt-BR") → alert that replaces or overrides `alert`'s fields.
    var localized: [String: JSON] = [:]
    /// The keys of `localized` by normalized tag (``LocaleMatch/normalize(_:)``), looked up per device at fan-out.
    var localizedByTag: [String: String] = [:]
    var sound: JSON?
    var badge: BadgeRule?
    var contentAvailable = false
    var mutableContent = false
    var category: String?
    var threadID: String?
    var interruptionLevel: String?
    var relevanceScore: Double?
    var targetContentID: String?
    var filterCriteria: String?
    /// `content-changed`: the widgets push type's reload signal.
    var contentChanged = false
    // Live Activity fields (A-LA); times are UNIX seconds, as on the wire.
    var contentState: [String: JSON]?
    var event: String?
    var timestamp: Int?
    var dismissalDate: Int?
    var staleDate: Int?
    var attributesType: String?
    var attributes: [String: JSON]?
    var data: [String: JSON] = [:]

    enum BadgeRule: Sendable, Equatable {
        case set(Int)
        case increment(Int)
        case decrement(Int)

        var change: BadgeChange {
            switch self {
            case .set(let n): .set(n)
            case .increment(let n): .add(n)
            case .decrement(let n): .add(-n)
            }
        }
    }

    var hasVisibleParts: Bool { alert != nil || !localized.isEmpty || sound != nil || badge != nil }
    var isBackgroundOnly: Bool { contentAvailable && !hasVisibleParts }
    var hasLiveActivityParts: Bool {
        contentState != nil || event != nil || timestamp != nil || dismissalDate != nil || staleDate != nil
            || attributesType != nil || attributes != nil
    }

    /// What APNSCore's push type rules look at (``APNSPushType/check(payload:)``): every variant has the same traits.
    var traits: APNSPayloadTraits {
        var visible: [String] = []
        if alert != nil || !localized.isEmpty { visible.append("alert") }
        if badge != nil { visible.append("badge") }
        if sound != nil { visible.append("sound") }
        return APNSPayloadTraits(hasAps: true, contentAvailable: contentAvailable, userVisibleKeys: visible, hasCustomApsKey: false,
                                 liveActivityEvent: event.map(APNSLiveActivityEvent.init(rawValue:)), hasTimestamp: timestamp != nil,
                                 hasAttributesType: attributesType != nil, hasAttributes: attributes != nil)
    }

    /// The content field that holds what an APNSCore rule found wrong or missing.
    static func field(for error: APNSValidationError) -> String {
        switch error {
        case .backgroundWithoutContentAvailable: "content.contentAvailable"
        case .liveActivityWithoutEvent, .unknownLiveActivityEvent: "content.event"
        case .liveActivityWithoutTimestamp: "content.timestamp"
        case .liveActivityStartIncomplete(let missing):
            switch missing.first {
            case "attributes-type": "content.attributesType"
            case "attributes": "content.attributes"
            default: "content.alert"
            }
        default: "content"
        }
    }

    static let alertFields: Set<String> = ["title", "subtitle", "body", "launchImage", "titleLocKey", "titleLocArgs",
                                           "subtitleLocKey", "subtitleLocArgs", "locKey", "locArgs"]
    static let apsNames: [String: String] = ["launchImage": "launch-image", "titleLocKey": "title-loc-key", "titleLocArgs": "title-loc-args",
                                             "subtitleLocKey": "subtitle-loc-key", "subtitleLocArgs": "subtitle-loc-args",
                                             "locKey": "loc-key", "locArgs": "loc-args"]
    /// Herald's alert field for each key of an APNs `alert` dictionary, for dialects that send Apple's names.
    static let alertFieldsByAPNsName: [String: String] = Dictionary(uniqueKeysWithValues: alertFields.map { (apsNames[$0] ?? $0, $0) })

    static func parse(_ body: BodyReader) throws -> PushContent {
        try body.rejectUnknown(["alert", "localized", "sound", "badge", "contentAvailable", "mutableContent", "category",
                                "threadId", "interruptionLevel", "relevanceScore", "targetContentId", "filterCriteria",
                                "contentChanged", "contentState", "event", "timestamp", "dismissalDate", "staleDate",
                                "attributesType", "attributes", "data"])
        var c = PushContent()
        if let a = body.object["alert"], !a.isNull { c.alert = try parseAlert(a, field: "content.alert") }
        if let loc = try body.object("localized") {
            guard loc.object.count <= 100 else { throw ServiceError.invalid("content.localized", "content.localized may hold at most 100 locales.") }
            for key in loc.object.keys.sorted() {
                _ = try Rules.locale(key, field: "content.localized.\(key)")
                c.localized[key] = try parseAlert(loc.object[key]!, field: "content.localized.\(key)")
                let tag = LocaleMatch.normalize(key)
                if let other = c.localizedByTag[tag] {
                    throw ServiceError.invalid("content.localized.\(key)", "content.localized has both \"\(other)\" and \"\(key)\", the same locale; keep one.")
                }
                c.localizedByTag[tag] = key
            }
        }
        if let s = body.object["sound"], !s.isNull {
            switch s {
            case .string(let name) where !name.isEmpty: c.sound = s
            case .object(let o):
                let sound = BodyReader(o, path: "content.sound")
                try sound.rejectUnknown(["name", "critical", "volume"])
                let name = try sound.requiredString("name")
                var out: [String: JSON] = ["name": .string(name)]
                if let critical = try sound.bool("critical") { out["critical"] = .int(critical ? 1 : 0) }
                if let volume = try sound.double("volume", range: 0...1) { out["volume"] = .number(volume) }
                c.sound = .object(out)
            default: throw ServiceError.invalid("content.sound", "content.sound must be a sound name or {name, critical, volume}.")
            }
        }
        if let b = body.object["badge"], !b.isNull {
            if let n = b.intValue {
                guard (0...99_999).contains(n) else { throw ServiceError.invalid("content.badge", "content.badge must be between 0 and 99999.") }
                c.badge = .set(n)
            } else if let o = b.objectValue, o.count == 1, let (op, v) = o.first, let n = v.intValue, (0...99_999).contains(n) {
                switch op {
                case "set": c.badge = .set(n)
                case "increment": c.badge = .increment(n)
                case "decrement": c.badge = .decrement(n)
                default: throw ServiceError.invalid("content.badge", "content.badge must be a number, {\"set\":n}, {\"increment\":n} or {\"decrement\":n}.")
                }
            } else {
                throw ServiceError.invalid("content.badge", "content.badge must be a number, {\"set\":n}, {\"increment\":n} or {\"decrement\":n} with n in 0...99999.")
            }
        }
        c.contentAvailable = try body.bool("contentAvailable") ?? false
        c.mutableContent = try body.bool("mutableContent") ?? false
        c.category = try body.string("category", maxLength: 64)
        c.threadID = try body.string("threadId", maxLength: 64)
        if let level = try body.string("interruptionLevel", maxLength: 32) {
            guard ["passive", "active", "time-sensitive", "critical"].contains(level) else {
                throw ServiceError.invalid("content.interruptionLevel", "content.interruptionLevel must be passive, active, time-sensitive or critical.")
            }
            c.interruptionLevel = level
        }
        c.targetContentID = try body.string("targetContentId", maxLength: 128)
        c.filterCriteria = try body.string("filterCriteria", maxLength: 256)
        c.contentChanged = try body.bool("contentChanged") ?? false
        c.contentState = try body.object("contentState")?.object
        c.event = try body.string("event", maxLength: 16)   // its values are checked with Apple's other rules, in PushSpec
        c.timestamp = try unixTime(body, "timestamp")
        c.dismissalDate = try unixTime(body, "dismissalDate")
        c.staleDate = try unixTime(body, "staleDate")
        c.attributesType = try body.string("attributesType", maxLength: 256)
        c.attributes = try body.object("attributes")?.object
        // Notifications score 0–1; a Live Activity ranks its updates on any scale (A-payload).
        c.relevanceScore = try body.double("relevanceScore", range: c.hasLiveActivityParts ? -1e9...1e9 : 0...1)
        if let data = try body.object("data") {
            for key in ["aps", "herald"] where data.has(key) {
                throw ServiceError.invalid("content.data.\(key)", "content.data must not contain \"\(key)\": Herald writes it.")
            }
            c.data = data.object
        }
        if !c.hasVisibleParts && !c.contentAvailable && !c.contentChanged && !c.hasLiveActivityParts && c.data.isEmpty {
            throw ServiceError(.invalid, code: "empty_content", message: "content has nothing to deliver: set alert, sound, badge, contentAvailable, contentState or data.", field: "content")
        }
        return c
    }

    /// A time as APNs writes it (UNIX seconds), given as those seconds or as an ISO 8601 time.
    static func unixTime(_ body: BodyReader, _ key: String) throws -> Int? {
        guard let v = body.object[key], !v.isNull else { return nil }
        if let seconds = v.intValue, seconds >= 0 { return seconds }
        if let text = v.stringValue, let date = ISO8601.parse(text) { return Int(date.timeIntervalSince1970.rounded(.down)) }
        throw ServiceError.invalid(body.name(key), "\(body.name(key)) must be UNIX seconds or an ISO 8601 time such as 2026-05-01T08:00:00Z.")
    }

    static func parseAlert(_ value: JSON, field: String) throws -> JSON {
        switch value {
        case .string(let s) where !s.isEmpty: return value
        case .object(let o):
            let alert = BodyReader(o, path: field)
            try alert.rejectUnknown(alertFields)
            var out: [String: JSON] = [:]
            for (key, v) in o {
                let isArgs = key.hasSuffix("Args")
                if isArgs { _ = try alert.stringArray(key, maxCount: 20, maxLength: 1024) } else { _ = try alert.string(key, maxLength: 4096) }
                out[apsNames[key] ?? key] = v
            }
            return .object(out)
        default:
            throw ServiceError.invalid(field, "\(field) must be a non-empty string or an object with title, subtitle, body, ...")
        }
    }

    /// The key of `localized` a device with this locale gets (BCP 47 lookup, ``LocaleMatch``); "" for the default.
    func variant(for locale: String?) -> String {
        guard !localized.isEmpty, let locale else { return "" }
        return LocaleMatch.lookup(locale, in: localizedByTag) ?? ""
    }

    /// The payload bytes for one variant and badge value.
    func payload(variant: String, badge: Int?, pushID: String) -> [UInt8] {
        var aps: [String: JSON] = [:]
        var alertValue = alert
        if let v = localized[variant] {
            if case .object(let override) = v, case .object(var base)? = alert {
                for (k, value) in override { base[k] = value }
                alertValue = .object(base)
            } else {
                alertValue = v
            }
        }
        if let alertValue { aps["alert"] = alertValue }
        if let sound { aps["sound"] = sound }
        if let badge { aps["badge"] = .int(badge) }
        if contentAvailable { aps["content-available"] = 1 }
        if mutableContent { aps["mutable-content"] = 1 }
        if let category { aps["category"] = .string(category) }
        if let threadID { aps["thread-id"] = .string(threadID) }
        if let interruptionLevel { aps["interruption-level"] = .string(interruptionLevel) }
        if let relevanceScore { aps["relevance-score"] = .number(relevanceScore) }
        if let targetContentID { aps["target-content-id"] = .string(targetContentID) }
        if let filterCriteria { aps["filter-criteria"] = .string(filterCriteria) }
        if contentChanged { aps["content-changed"] = true }
        if let contentState { aps["content-state"] = .object(contentState) }
        if let event { aps["event"] = .string(event) }
        if let timestamp { aps["timestamp"] = .int(timestamp) }
        if let dismissalDate { aps["dismissal-date"] = .int(dismissalDate) }
        if let staleDate { aps["stale-date"] = .int(staleDate) }
        if let attributesType { aps["attributes-type"] = .string(attributesType) }
        if let attributes { aps["attributes"] = .object(attributes) }
        var root = data
        root["aps"] = .object(aps)
        root["herald"] = ["pushId": .string(pushID)]
        return root.isEmpty ? [] : JSON.object(root).bytes
    }

    /// The largest payload any installation could get, for the size check at acceptance.
    func largestPayloadSize(pushID: String) -> Int {
        let badge: Int? = badge == nil ? nil : 99_999
        return ([""] + Array(localized.keys)).map { payload(variant: $0, badge: badge, pushID: pushID).count }.max() ?? 0
    }
}
