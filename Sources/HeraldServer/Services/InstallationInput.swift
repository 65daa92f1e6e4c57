import Foundation
import HeraldJSON
import HeraldStore

/// The installation fields a client sends, validated into a store draft. Read-only fields a client may echo
/// back from a response (id, active, createdAt, ...) are ignored; anything else unknown is rejected.
enum InstallationInput {
    static let fields: Set<String> = ["installationId", "deviceToken", "environment", "topic", "tags", "alias", "userId", "locale",
                                      "timeZone", "badge", "appVersion", "osVersion", "deviceModel", "properties"]
    static let readOnly: Set<String> = ["id", "active", "inactiveReason", "inactiveAt", "createdAt", "updatedAt", "lastSeenAt"]

    static func parse(_ body: BodyReader) throws -> InstallationDraft {
        try body.rejectUnknown(fields, ignoring: readOnly)
        var d = InstallationDraft()
        if let iid = try body.string("installationId", maxLength: 128) { d.installationID = try Rules.identifier(iid, field: body.name("installationId")) }
        if let token = try body.string("deviceToken", maxLength: 400) { d.deviceToken = try Rules.deviceToken(token, field: body.name("deviceToken")) }
        d.environment = try Rules.environment(try body.string("environment", maxLength: 16), field: body.name("environment"))
        d.topic = try body.nullableString("topic", maxLength: 255)
        d.tags = try Rules.tags(try body.stringArray("tags", maxCount: 1000, maxLength: 64), field: body.name("tags"))
        d.alias = try body.nullableString("alias", maxLength: 128)
        d.userID = try body.nullableString("userId", maxLength: 128)
        if let locale = try body.nullableString("locale", maxLength: 35) {
            d.locale = .some(try Rules.locale(locale, field: body.name("locale")))
        }
        if let zone = try body.nullableString("timeZone", maxLength: 64) {
            d.timeZone = .some(try Rules.timeZone(zone, field: body.name("timeZone")))
        }
        d.badge = try body.int("badge", range: 0...999_999)
        d.appVersion = try body.nullableString("appVersion", maxLength: 64)
        d.osVersion = try body.nullableString("osVersion", maxLength: 64)
        d.deviceModel = try body.nullableString("deviceModel", maxLength: 64)
        if let props = try body.object("properties") {
            guard props.object.count <= 64 else { throw ServiceError.invalid(body.name("properties"), "properties may hold at most 64 keys.") }
            for (key, value) in props.object {
                switch value {
                case .string, .number, .bool, .null: continue
                default: throw ServiceError.invalid(props.name(key), "Property values must be strings, numbers, booleans or null.")
                }
            }
            let text = JSON.object(props.object).encoded
            guard text.utf8.count <= 4096 else { throw ServiceError.invalid(body.name("properties"), "properties must encode to at most 4096 bytes.") }
            d.properties = text
        }
        return d
    }

    static func json(_ r: InstallationRecord) -> JSON { JSON(jsonValue(r)) }

    /// The installation as the API shows it, its keys in the sorted order `JSON` writes, built member by
    /// member: it is the answer to every registration, and the way through `JSON`'s dictionary (hashing the
    /// 21 keys, then sorting them to write) cost as much as the rest of the request's JSON.
    static func jsonValue(_ r: InstallationRecord) -> JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func time(_ date: Date?) -> JSONValue { date.map { .string(ISO8601.string($0)) } ?? .null }
        var o = JSONObject(capacity: 21)
        o.appendUnchecked("active", .bool(r.active))
        o.appendUnchecked("alias", text(r.alias))
        o.appendUnchecked("appVersion", text(r.appVersion))
        o.appendUnchecked("badge", .int(r.badge))
        o.appendUnchecked("createdAt", time(r.createdAt))
        o.appendUnchecked("deviceModel", text(r.deviceModel))
        o.appendUnchecked("deviceToken", text(r.deviceToken))
        o.appendUnchecked("environment", .string(r.environment))
        o.appendUnchecked("id", .string(r.id))
        o.appendUnchecked("inactiveAt", time(r.inactiveAt))
        o.appendUnchecked("inactiveReason", text(r.inactiveReason))
        o.appendUnchecked("installationId", .string(r.installationID))
        o.appendUnchecked("lastSeenAt", time(r.lastSeenAt))
        o.appendUnchecked("locale", text(r.locale))
        o.appendUnchecked("osVersion", text(r.osVersion))
        // Stored sorted by `parse`; read through `JSON` anyway, which sorts whatever an import stored.
        o.appendUnchecked("properties", r.properties == "{}" ? .object(JSONObject()) : ((try? JSON(parsing: r.properties)) ?? [:]).jsonValue)
        o.appendUnchecked("tags", .array(r.tags.map(JSONValue.string)))
        o.appendUnchecked("timeZone", text(r.timeZone))
        o.appendUnchecked("topic", text(r.topic))
        o.appendUnchecked("updatedAt", time(r.updatedAt))
        o.appendUnchecked("userId", text(r.userID))
        return .object(o)
    }
}
