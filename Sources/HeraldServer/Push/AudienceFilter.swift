import Foundation
import HeraldStore

/// Conditions on installation fields that fan-out checks per member: locale, appVersion, timeZone and
/// custom properties, each equal to a value or in a list (`{"in": [...]}`), and the installation ids a
/// member must be among (so a list of aliases can be narrowed to listed devices, as JPush's audiences AND them).
struct AudienceFilter: Sendable {
    var installationIDs: Set<String>?
    var locale: [String]?
    var appVersion: [String]?
    var timeZone: [String]?
    var properties: [(String, [JSON])] = []

    var isEmpty: Bool { installationIDs == nil && locale == nil && appVersion == nil && timeZone == nil && properties.isEmpty }

    static func parse(_ body: BodyReader?) throws -> AudienceFilter {
        var f = AudienceFilter()
        guard let body else { return f }
        try body.rejectUnknown(["installationIds", "locale", "appVersion", "timeZone", "properties"])
        f.installationIDs = try body.stringArray("installationIds", maxCount: 10_000, maxLength: 128).map(Set.init)
        f.locale = try values(body, "locale")?.map { $0.stringValue.map(LocaleMatch.normalize) ?? "" }
        f.appVersion = try values(body, "appVersion")?.compactMap(\.stringValue)
        f.timeZone = try values(body, "timeZone")?.compactMap(\.stringValue)
        if let props = try body.object("properties") {
            for key in props.object.keys.sorted() {
                f.properties.append((key, try values(props, key) ?? []))
            }
        }
        return f
    }

    /// A scalar means equality; `{"in": [...]}` means membership.
    static func values(_ body: BodyReader, _ key: String) throws -> [JSON]? {
        guard let v = body.object[key] else { return nil }
        switch v {
        case .string, .number, .bool: return [v]
        case .object(let o):
            guard o.count == 1, let list = o["in"]?.arrayValue, !list.isEmpty, list.count <= 1000 else {
                throw ServiceError.invalid(body.name(key), "\(body.name(key)) must be a value or {\"in\": [values]} with 1–1000 values.")
            }
            return list
        default:
            throw ServiceError.invalid(body.name(key), "\(body.name(key)) must be a value or {\"in\": [values]}.")
        }
    }

    func matches(_ m: AudienceMember) -> Bool {
        if let installationIDs, !installationIDs.contains(m.id) { return false }
        if let locale {
            // The device's lookup chain, as content.localized uses it: "fr" names fr-FR and fr-CA, "fr-FR" only fr-FR.
            guard let chain = m.locale.map(LocaleMatch.fallbacks), locale.contains(where: chain.contains) else { return false }
        }
        if let appVersion { guard let v = m.appVersion, appVersion.contains(v) else { return false } }
        if let timeZone { guard let z = m.timeZone, timeZone.contains(z) else { return false } }
        if !properties.isEmpty {
            guard let props = (try? JSON(parsing: m.properties))?.objectValue else { return false }
            for (key, allowed) in properties {
                guard let value = props[key], allowed.contains(value) else { return false }
            }
        }
        return true
    }
}
