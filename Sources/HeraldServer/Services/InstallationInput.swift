import Foundation
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

    static func json(_ r: InstallationRecord) -> JSON {
        [
            "id": .string(r.id), "installationId": .string(r.installationID), "deviceToken": .optional(r.deviceToken),
            "environment": .string(r.environment), "topic": .optional(r.topic), "tags": .array(r.tags.map(JSON.string)),
            "alias": .optional(r.alias), "userId": .optional(r.userID), "locale": .optional(r.locale), "timeZone": .optional(r.timeZone),
            "badge": .int(r.badge), "appVersion": .optional(r.appVersion), "osVersion": .optional(r.osVersion),
            "deviceModel": .optional(r.deviceModel), "properties": (try? JSON(parsing: r.properties)) ?? [:],
            "active": .bool(r.active), "inactiveReason": .optional(r.inactiveReason), "inactiveAt": ISO8601.json(r.inactiveAt),
            "createdAt": ISO8601.json(r.createdAt), "updatedAt": ISO8601.json(r.updatedAt), "lastSeenAt": ISO8601.json(r.lastSeenAt),
        ]
    }
}
