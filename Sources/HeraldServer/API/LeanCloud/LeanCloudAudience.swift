import Foundation

/// A push's `where` (and `channels`) on `_Installation`, as Herald's target: channels become tags, deviceToken
/// and objectId/installationId lists the audience source, and timeZone, localeIdentifier, appVersion,
/// apnsTeamId, deviceProfile and custom columns a per-device filter (`target.filter`, with `$or` as `any`).
/// Conditions Herald cannot check while fanning out (channels inside `$or`, comparisons, dates, badge, topic) are
/// refused with the reason; `deviceType` must allow iOS and `valid` may only be true (Herald pushes to active
/// installations only).
struct LeanCloudAudience {
    var target: [String: JSON] = [:]
    private var tagsAny: [String]?
    private var tagsAll: [String] = []
    private var tagsNone: [String] = []
    private var filter: [String: JSON] = [:]
    private var anyGroups: [JSON] = []

    /// Fields a per-device filter checks, LeanCloud column → Herald filter key.
    static let filterFields = ["timeZone": "timeZone", "localeIdentifier": "locale", "appVersion": "appVersion"]
    /// Registry fields no push can be narrowed by.
    static let unsupported: Set<String> = ["badge", "apnsTopic", "createdAt", "updatedAt", "ACL"]

    static func target(where query: LeanCloudWhere?, channels: [String]?) throws -> [String: JSON] {
        var audience = LeanCloudAudience()
        if let channels { audience.tagsAny = channels }
        for part in query?.conjuncts ?? [] { try audience.add(part) }
        return audience.build()
    }

    private mutating func add(_ part: LeanCloudWhere) throws {
        switch part {
        case .and(let parts): for p in parts { try add(p) }
        case .or(let branches):
            anyGroups.append(.array(try branches.map { .object(try Self.filterOnly($0)) }))
        case .field(let key, let condition):
            switch key {
            case "channels": try addChannels(condition)
            case "deviceType":
                let allowsIOS: Bool = switch condition {
                case .equals(let v): v == "ios"
                case .oneOf(let list): list.contains("ios")
                case .notEquals(let v): v != "ios"
                case .noneOf(let list): !list.contains("ios")
                default: false
                }
                guard allowsIOS else { throw ServiceError.invalid("where.deviceType", "Herald delivers to iOS (APNs) installations only; where.deviceType must allow \"ios\".") }
            case "valid":
                guard case .equals(.bool(true)) = condition else {
                    throw ServiceError.invalid("where.valid", "Herald pushes to valid (active) installations only; where.valid may only be true.")
                }
            case "deviceToken", "objectId", "installationId":
                let values: [JSON]
                switch condition {
                case .equals(let v): values = [v]
                case .oneOf(let list): values = list
                default: throw ServiceError.invalid("where.\(key)", "where.\(key) must be a value or {\"$in\": [...]} to target a push.")
                }
                guard target["tokens"] == nil && target["installationIds"] == nil else {
                    throw ServiceError.invalid("where.\(key)", "Give one list of devices: deviceToken, or objectId/installationId.")
                }
                target[key == "deviceToken" ? "tokens" : "installationIds"] = .array(values)
            default:
                let (name, test) = try Self.filterCondition(key, condition)
                if name.hasPrefix("properties.") {
                    var props = filter["properties"]?.objectValue ?? [:]
                    props[String(name.dropFirst(11))] = test
                    filter["properties"] = .object(props)
                } else {
                    filter[name] = test
                }
            }
        }
    }

    private mutating func addChannels(_ condition: LeanCloudWhere.Condition) throws {
        func names(_ list: [JSON]) throws -> [String] {
            try list.map { guard let s = $0.stringValue else { throw ServiceError.invalid("where.channels", "Channel names are strings.") }; return s }
        }
        switch condition {
        case .equals(let v): tagsAll += try names(v.arrayValue ?? [v])
        case .containsAll(let list): tagsAll += try names(list)
        case .oneOf(let list):
            guard tagsAny == nil else { throw ServiceError.invalid("where.channels", "Give channels once: either the push's channels or where.channels {\"$in\": [...]}.") }
            tagsAny = try names(list)
        case .notEquals(let v): tagsNone += try names([v])
        case .noneOf(let list): tagsNone += try names(list)
        default: throw ServiceError.invalid("where.channels", "where.channels takes a channel, $in, $all, $ne or $nin.")
        }
    }

    /// A condition a device's own fields decide, as `target.filter` writes it.
    static func filterCondition(_ key: String, _ condition: LeanCloudWhere.Condition) throws -> (String, JSON) {
        if unsupported.contains(key) || key.hasPrefix("$") || ["channels", "deviceToken", "objectId", "installationId", "deviceType", "valid"].contains(key) {
            throw ServiceError.invalid("where.\(key)", "where.\(key) cannot narrow a push here (inside $or, or not a field Herald filters devices by); target by channels, deviceToken, objectId, timeZone, localeIdentifier, appVersion or custom columns.")
        }
        let name = filterFields[key] ?? "properties.\(key)"
        let test: JSON
        switch condition {
        case .equals(let v) where !v.isNull: test = v
        case .equals: test = ["exists": false]
        case .notEquals(let v): test = v.isNull ? ["exists": true] : ["ne": v]
        case .oneOf(let list): test = ["in": .array(list)]
        case .noneOf(let list): test = ["nin": .array(list)]
        case .exists(let flag): test = ["exists": .bool(flag)]
        case .containsAll, .compare:
            throw ServiceError.invalid("where.\(key)", "where.\(key): comparisons and $all cannot target a push; use equality, $in, $nin, $ne or $exists.")
        }
        return (name, test)
    }

    /// A `$or` branch, which only per-device fields may decide.
    static func filterOnly(_ query: LeanCloudWhere) throws -> [String: JSON] {
        var audience = LeanCloudAudience()
        for part in query.conjuncts {
            switch part {
            case .field(let key, let condition) where key != "deviceType" && key != "valid":
                let (name, test) = try filterCondition(key, condition)
                if name.hasPrefix("properties.") {
                    var props = audience.filter["properties"]?.objectValue ?? [:]
                    props[String(name.dropFirst(11))] = test
                    audience.filter["properties"] = .object(props)
                } else {
                    audience.filter[name] = test
                }
            default: try audience.add(part)
            }
        }
        guard audience.target.isEmpty, audience.tagsAny == nil, audience.tagsAll.isEmpty, audience.tagsNone.isEmpty else {
            throw ServiceError.invalid("where.$or", "Inside $or, only timeZone, localeIdentifier, appVersion and custom columns can target a push (channels and device lists belong at the top level).")
        }
        var out = audience.filter
        Self.addGroups(audience.anyGroups, to: &out)
        return out
    }

    /// One `$or` is the filter's `any`; several (all must hold) go under `all`, one `any` each.
    static func addGroups(_ groups: [JSON], to filter: inout [String: JSON]) {
        if groups.count == 1 { filter["any"] = groups[0] } else if groups.count > 1 { filter["all"] = .array(groups.map { ["any": $0] }) }
    }

    private func build() -> [String: JSON] {
        var out = target
        var tags: [String: JSON] = [:]
        if let tagsAny { tags["any"] = .array(tagsAny.map(JSON.string)) }
        if !tagsAll.isEmpty { tags["all"] = .array(tagsAll.map(JSON.string)) }
        if !tagsNone.isEmpty { tags["none"] = .array(tagsNone.map(JSON.string)) }
        if !tags.isEmpty { out["tags"] = .object(tags) }
        if out["tokens"] == nil && out["installationIds"] == nil && tagsAny == nil && tagsAll.isEmpty { out["all"] = true }
        var f = filter
        Self.addGroups(anyGroups, to: &f)
        if !f.isEmpty { out["filter"] = .object(f) }
        return out
    }
}
