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

    /// The installation as the API shows it, as compact JSON.
    static func jsonBytes(_ r: InstallationRecord) -> [UInt8] {
        var writer = JSONWriter(capacity: 768)
        write(r, to: &writer)
        return writer.bytes
    }

    /// The installation as the API shows it, its keys in the sorted order `JSON` writes objects in,
    /// written straight into the answer: it answers every registration, and built as a `JSONValue` tree
    /// and then written it took 30,000 instructions, against 13,000 now.
    static func write(_ r: InstallationRecord, to w: inout JSONWriter) {
        var first = true
        func key(_ name: StaticString) { w.writeStaticKey(name, first: &first) }
        func text(_ name: StaticString, _ value: String?) {
            key(name)
            if let value { w.writeString(value) } else { w.writeNull() }
        }
        func time(_ name: StaticString, _ date: Date?) { text(name, date.map(ISO8601.string)) }
        w.writeRaw(UInt8(ascii: "{"))
        key("active"); w.writeBool(r.active)
        text("alias", r.alias)
        text("appVersion", r.appVersion)
        key("badge"); w.writeInt(r.badge)
        time("createdAt", r.createdAt)
        text("deviceModel", r.deviceModel)
        text("deviceToken", r.deviceToken)
        text("environment", r.environment)
        text("id", r.id)
        time("inactiveAt", r.inactiveAt)
        text("inactiveReason", r.inactiveReason)
        text("installationId", r.installationID)
        time("lastSeenAt", r.lastSeenAt)
        text("locale", r.locale)
        text("osVersion", r.osVersion)
        // Stored sorted by `parse`; read through `JSON` anyway, which sorts whatever an import stored.
        key("properties")
        if r.properties == "{}" {
            w.writeRaw(UInt8(ascii: "{")); w.writeRaw(UInt8(ascii: "}"))
        } else {
            w.write(((try? JSON(parsing: r.properties)) ?? [:]).jsonValue)
        }
        key("tags"); w.writeStringArray(r.tags)
        text("timeZone", r.timeZone)
        text("topic", r.topic)
        time("updatedAt", r.updatedAt)
        text("userId", r.userID)
        w.writeRaw(UInt8(ascii: "}"))
    }

    /// A page of installations as `{"installations":[...],"nextCursor":...}`.
    static func pageBytes(_ items: [InstallationRecord], next: String?) -> [UInt8] {
        var w = JSONWriter(capacity: 64 + items.count * 768)
        var first = true
        w.writeRaw(UInt8(ascii: "{"))
        w.writeStaticKey("installations", first: &first)
        w.writeRaw(UInt8(ascii: "["))
        for (i, r) in items.enumerated() {
            if i > 0 { w.writeRaw(UInt8(ascii: ",")) }
            write(r, to: &w)
        }
        w.writeRaw(UInt8(ascii: "]"))
        w.writeStaticKey("nextCursor", first: &first)
        if let next { w.writeString(next) } else { w.writeNull() }
        w.writeRaw(UInt8(ascii: "}"))
        return w.bytes
    }
}
