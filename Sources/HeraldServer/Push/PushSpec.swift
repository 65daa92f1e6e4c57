import APNSCore
import Foundation
import HeraldStore

/// A validated push request: who gets it, what it says, and how it is sent. Parsed from the API body and
/// parsed again (from the stored body) by the delivery engine after a restart, so both see the same rules.
struct PushSpec: Sendable {
    var selector: AudienceSelector
    var filter: AudienceFilter
    var content: PushContent
    var pushType: APNSPushType
    var priority: Int
    var expiration: Date?
    var collapseID: String?
    var topic: String?
    var sendAt: Date?
    var localTime: LocalTime?
    var rateLimit: Int?
    var idempotencyKey: String?
    var dryRun: Bool

    /// `now` is the acceptance time (ttl counts from it). `checkTimes` rejects a sendAt far in the future;
    /// the engine re-parsing an accepted push passes false.
    static func parse(_ object: [String: JSON], now: Date, checkTimes: Bool = true) throws -> PushSpec {
        let body = BodyReader(object)
        try body.rejectUnknown(["target", "content", "options", "idempotencyKey", "dryRun"])
        guard let target = try body.object("target") else { throw ServiceError.missing("target") }
        guard let contentBody = try body.object("content") else { throw ServiceError.missing("content") }
        let (selector, filter) = try parseTarget(target)
        let content = try PushContent.parse(contentBody)
        let options = try body.object("options") ?? BodyReader([:], path: "options")
        try options.rejectUnknown(["pushType", "priority", "expiration", "ttl", "collapseId", "topic", "sendAt", "localTime", "rateLimit"])

        let requestedType = try options.string("pushType", maxLength: 32).map(APNSPushType.init(rawValue:))
        if let t = requestedType, !t.isKnown {
            throw ServiceError.invalid("options.pushType", "options.pushType must be one of \(APNSPushType.allKnown.map(\.rawValue).joined(separator: ", ")).")
        }
        // Derive the type so APNs never drops the push for a missing apns-push-type.
        let pushType = requestedType ?? .inferred(from: content.traits)
        let explicitPriority = try options.int("priority", range: 1...10)
        let priority = explicitPriority ?? pushType.defaultPriority.rawValue
        // Apple's rules for the push type, from APNSCore (the same checks the APNs client runs before sending).
        do {
            try pushType.check(payload: content.traits)
        } catch .backgroundWithUserVisibleContent {
            throw ServiceError.invalid("options.pushType", "A background push cannot carry alert, sound or badge; remove them or use pushType alert.")
        } catch {
            let field = PushContent.field(for: error)
            let code = switch error {
            case .liveActivityWithoutEvent, .liveActivityWithoutTimestamp, .liveActivityStartIncomplete: "missing_field"
            default: "invalid_field"
            }
            throw ServiceError(.invalid, code: code, message: "\(field): \(error) (pushType \(pushType)).", field: field)
        }
        do {
            try pushType.check(priority: APNSPriority(rawValue: priority))
        } catch {
            throw ServiceError.invalid("options.priority", "options.priority: \(error).")
        }

        if options.has("expiration") && options.has("ttl") {
            throw ServiceError.invalid("options.ttl", "Set options.expiration or options.ttl, not both.")
        }
        var expiration = try options.date("expiration")
        if let ttl = try options.int("ttl", range: 0...2_592_000) { expiration = now.addingTimeInterval(Double(ttl)) }
        let collapseID = try options.string("collapseId", maxLength: 64)
        let topic = try options.string("topic", maxLength: 255)
        let sendAt = try options.date("sendAt")
        if checkTimes, let s = sendAt, s.timeIntervalSince(now) > 366 * 86_400 {
            throw ServiceError.invalid("options.sendAt", "options.sendAt is more than a year ahead.")
        }
        if checkTimes, let e = expiration, let s = sendAt, e <= s {
            throw ServiceError.invalid("options.expiration", "options.expiration is before options.sendAt: the push would expire before it is sent.")
        }
        let localTime = try options.string("localTime", maxLength: 5).map { try LocalTime.parse($0, field: "options.localTime") }
        let rateLimit = try options.int("rateLimit", range: 1...10_000_000)
        let key = try body.string("idempotencyKey", maxLength: 128)
        return PushSpec(selector: selector, filter: filter, content: content, pushType: pushType, priority: priority,
                        expiration: expiration, collapseID: collapseID, topic: topic, sendAt: sendAt, localTime: localTime,
                        rateLimit: rateLimit, idempotencyKey: key, dryRun: try body.bool("dryRun") ?? false)
    }

    static func parseTarget(_ target: BodyReader) throws -> (AudienceSelector, AudienceFilter) {
        try target.rejectUnknown(["all", "tokens", "installationIds", "aliases", "userIds", "tags", "environment", "filter"])
        var sources: [AudienceSelector.Source] = []
        if try target.bool("all") == true { sources.append(.all) }
        if let v = try target.stringArray("tokens", maxCount: 10_000, maxLength: 400) {
            sources.append(.tokens(try v.enumerated().map { try Rules.deviceToken($1, field: "target.tokens[\($0)]") }))
        }
        if let v = try target.stringArray("installationIds", maxCount: 10_000, maxLength: 128) { sources.append(.installationIDs(v)) }
        if let v = try target.stringArray("aliases", maxCount: 10_000, maxLength: 128) { sources.append(.aliases(v)) }
        if let v = try target.stringArray("userIds", maxCount: 10_000, maxLength: 128) { sources.append(.userIDs(v)) }
        guard sources.count <= 1 else {
            throw ServiceError.invalid("target", "Use one of target.all, tokens, installationIds, aliases or userIds (tags and filter narrow any of them).")
        }
        var selector = AudienceSelector(source: sources.first ?? .all)
        if let v = target.object["tags"] {
            if v.arrayValue != nil {
                selector.tagsAny = try Rules.tags(try target.stringArray("tags", maxCount: 100, maxLength: 64), field: "target.tags")
            } else if let tags = try target.object("tags") {
                try tags.rejectUnknown(["any", "all", "none"])
                selector.tagsAny = try Rules.tags(try tags.stringArray("any", maxCount: 100, maxLength: 64), field: "target.tags.any")
                selector.tagsAll = try Rules.tags(try tags.stringArray("all", maxCount: 100, maxLength: 64), field: "target.tags.all")
                selector.tagsNone = try Rules.tags(try tags.stringArray("none", maxCount: 100, maxLength: 64), field: "target.tags.none")
            }
            for (name, list) in [("any", selector.tagsAny), ("all", selector.tagsAll)] where list?.isEmpty == true {
                throw ServiceError.invalid("target.tags.\(name)", "target.tags.\(name) is empty: it would match nobody. Remove it or name a tag.")
            }
        }
        if sources.isEmpty && selector.tagsAny == nil && selector.tagsAll == nil {
            throw ServiceError.missing("target", "target must name an audience: all: true, tokens, installationIds, aliases, userIds or tags.")
        }
        selector.environment = try Rules.environment(try target.string("environment", maxLength: 16), field: "target.environment")
        let filter = try AudienceFilter.parse(try target.object("filter"))
        return (selector, filter)
    }
}

/// A time of day ("09:30") for delivery in each device's time zone.
struct LocalTime: Sendable, Equatable {
    var hour: Int
    var minute: Int

    static func parse(_ text: String, field: String) throws -> LocalTime {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]), (0..<24).contains(h), (0..<60).contains(m), parts[1].count == 2 else {
            throw ServiceError.invalid(field, "\(field) must be a time of day as HH:mm, such as 09:30.")
        }
        return LocalTime(hour: h, minute: m)
    }

    /// The first moment at or after `base` when clocks in `zone` show this time.
    func next(after base: Date, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var day = calendar.dateComponents([.year, .month, .day], from: base)
        day.hour = hour
        day.minute = minute
        day.second = 0
        guard let candidate = calendar.date(from: day) else { return base }
        if candidate >= base { return candidate }
        return calendar.date(byAdding: .day, value: 1, to: candidate) ?? candidate
    }
}
