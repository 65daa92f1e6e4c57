import Foundation
import HeraldStore

/// Conditions on installation fields that fan-out checks per member: locale, appVersion, timeZone and custom
/// properties. Each is a value (equality), `{"in": [...]}`, `{"nin": [...]}`, `{"ne": value}` or
/// `{"exists": true|false}`; all must hold, and `"any": [filter, ...]` holds when at least one of its filters
/// does (`"all": [filter, ...]` is the same as writing its filters' conditions together); `installationIds` keeps
/// only the listed installations. LeanCloud's `where` on `_Installation` is translated into this (`LeanCloudAudience`).
struct AudienceFilter: Sendable {
    enum Field: Sendable, Equatable {
        case locale, appVersion, timeZone
        case property(String)
    }

    enum Test: Sendable {
        case oneOf([JSON])
        case noneOf([JSON])
        case exists(Bool)
    }

    /// The installations (server ids) a member must be among: a list of aliases narrowed to listed devices, as
    /// JPush's audiences AND them.
    var installationIDs: Set<String>?
    var conditions: [(Field, Test)] = []
    /// Each group holds when at least one of its filters holds.
    var any: [[AudienceFilter]] = []

    var isEmpty: Bool { installationIDs == nil && conditions.isEmpty && any.isEmpty }

    static let maxDepth = 8
    static let maxValues = 1000

    static func parse(_ body: BodyReader?, depth: Int = 0) throws -> AudienceFilter {
        var f = AudienceFilter()
        guard let body else { return f }
        guard depth < maxDepth else { throw ServiceError.invalid(body.path, "\(body.path) is nested more than \(maxDepth) levels deep.") }
        try body.rejectUnknown(["installationIds", "locale", "appVersion", "timeZone", "properties", "any", "all"])
        f.installationIDs = try body.stringArray("installationIds", maxCount: 10_000, maxLength: 128).map(Set.init)
        for (key, field) in [("locale", Field.locale), ("appVersion", .appVersion), ("timeZone", .timeZone)] {
            if let test = try test(body, key) { f.conditions.append((field, field == .locale ? test.normalizingLocales : test)) }
        }
        if let props = try body.object("properties") {
            for key in props.object.keys.sorted() {
                if let test = try test(props, key) { f.conditions.append((.property(key), test)) }
            }
        }
        if let group = try filters(body, "any", depth: depth) { f.any.append(group) }
        for sub in try filters(body, "all", depth: depth) ?? [] {
            f.conditions += sub.conditions
            f.any += sub.any
        }
        return f
    }

    private static func filters(_ body: BodyReader, _ key: String, depth: Int) throws -> [AudienceFilter]? {
        guard let list = body.object[key] else { return nil }
        guard let items = list.arrayValue, !items.isEmpty, items.count <= maxValues else {
            throw ServiceError.invalid(body.name(key), "\(body.name(key)) must be a list of 1–\(maxValues) filters.")
        }
        return try items.enumerated().map { i, item in
            guard let o = item.objectValue else { throw ServiceError.invalid("\(body.name(key))[\(i)]", "\(body.name(key))[\(i)] must be a filter object.") }
            return try parse(BodyReader(o, path: "\(body.name(key))[\(i)]"), depth: depth + 1)
        }
    }

    /// A scalar means equality; `{"in"|"nin": [...]}`, `{"ne": value}` or `{"exists": bool}` the others.
    static func test(_ body: BodyReader, _ key: String) throws -> Test? {
        guard let v = body.object[key] else { return nil }
        let name = body.name(key)
        switch v {
        case .string, .number, .bool: return .oneOf([v])
        case .object(let o) where o.count == 1:
            let (op, operand) = o.first!
            switch op {
            case "in", "nin":
                guard let list = operand.arrayValue, !list.isEmpty, list.count <= maxValues, list.allSatisfy(\.isScalar) else { break }
                return op == "in" ? .oneOf(list) : .noneOf(list)
            case "ne" where operand.isScalar: return .noneOf([operand])
            case "exists": if let flag = operand.boolValue { return .exists(flag) }
            default: break
            }
        default: break
        }
        throw ServiceError.invalid(name, "\(name) must be a value, {\"in\": [values]} or {\"nin\": [values]} with 1–\(maxValues) values, {\"ne\": value} or {\"exists\": true|false}.")
    }

    func matches(_ m: AudienceMember) -> Bool {
        if let installationIDs, !installationIDs.contains(m.id) { return false }
        var properties: [String: JSON]?
        for (field, test) in conditions {
            let values: [JSON]?
            switch field {
            // The device's lookup chain, as content.localized uses it: "fr" names fr-FR and fr-CA, "fr-FR" only fr-FR.
            case .locale: values = m.locale.map { LocaleMatch.fallbacks($0).map(JSON.string) }
            case .appVersion: values = m.appVersion.map { [.string($0)] }
            case .timeZone: values = m.timeZone.map { [.string($0)] }
            case .property(let key):
                if properties == nil { properties = (try? JSON(parsing: m.properties))?.objectValue ?? [:] }
                values = properties?[key].flatMap { $0.isNull ? nil : [$0] }
            }
            guard test.holds(for: values) else { return false }
        }
        return any.allSatisfy { group in group.contains { $0.matches(m) } }
    }
}

extension AudienceFilter.Test {
    /// `values` is nil when the member has no value for the field.
    func holds(for values: [JSON]?) -> Bool {
        switch self {
        case .oneOf(let list): return values?.contains(where: list.contains) ?? false
        case .noneOf(let list): return !(values?.contains(where: list.contains) ?? false)
        case .exists(let flag): return (values != nil) == flag
        }
    }

    var normalizingLocales: Self {
        switch self {
        case .oneOf(let list): .oneOf(list.map { $0.stringValue.map { .string(LocaleMatch.normalize($0)) } ?? $0 })
        case .noneOf(let list): .noneOf(list.map { $0.stringValue.map { .string(LocaleMatch.normalize($0)) } ?? $0 })
        case .exists: self
        }
    }
}

private extension JSON {
    var isScalar: Bool {
        switch self {
        case .string, .number, .bool: true
        default: false
        }
    }
}
