import Foundation
import HeraldStore

/// `POST /v1/installations/import?format=leancloud`: LeanCloud's data export of `_Installation` (JSON lines,
/// or the REST shape `{"results": [...]}`), one object per installation as LeanCloud stores it. Each iOS row
/// becomes a Herald installation whose id is the row's objectId, so an app that registers again through
/// the LeanCloud routes with the same installationId or deviceToken finds its installation and keeps the
/// objectId it knows. Rows of other device types are counted as skipped, not failed.
extension TransferAPI {
    /// What one exported row turns into.
    enum LeanCloudRow {
        case installation(objectID: String, InstallationDraft)
        /// Not an Apple device (android, harmony, ...): Herald delivers through APNs only.
        case skipped(deviceType: String)
    }

    /// Columns LeanCloud itself manages, mapped to Herald's fields; `properties` takes the rest.
    static let leanCloudFields: [String: String] = [
        "installationId": "installationId", "deviceToken": "deviceToken", "channels": "tags", "timeZone": "timeZone",
        "badge": "badge", "apnsTopic": "topic", "localeIdentifier": "locale", "appVersion": "appVersion",
    ]
    /// Columns read separately (objectId, deviceType, valid, the dates) or with no meaning here (ACL).
    static let leanCloudHandled: Set<String> = ["objectId", "deviceType", "valid", "createdAt", "updatedAt", "ACL"]
    /// Why an installation is inactive when LeanCloud had marked it `valid: false` (APNs refused its token).
    static let leanCloudInvalidReason = "LeanCloud: valid=false"

    /// Reads one exported row; throws `ServiceError` naming the column at fault.
    static func leanCloudRow(_ object: [String: JSON]) throws -> LeanCloudRow {
        guard let objectID = object["objectId"]?.stringValue else {
            throw ServiceError.missing("objectId", "Every row of a LeanCloud export has an objectId (a string); this one has none.")
        }
        // LeanCloud's are 24 hexadecimal digits; letters and digits up to 64 are accepted, nothing that could
        // be mistaken for an installationId with punctuation.
        guard (1...64).contains(objectID.utf8.count), objectID.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }) else {
            throw ServiceError.invalid("objectId", "objectId must be 1–64 letters or digits, as LeanCloud makes them (24 hexadecimal digits).")
        }
        switch object["deviceType"] {
        case nil, .null?, .string("ios")?: break
        case .string(let other)?: return .skipped(deviceType: other)
        default: throw ServiceError.invalid("deviceType", "deviceType must be a string such as \"ios\".")
        }

        var fields: [String: JSON] = [:]
        var properties: [String: JSON] = [:]
        for (key, value) in object where !leanCloudHandled.contains(key) {
            if let mapped = leanCloudFields[key] {
                fields[mapped] = value
            } else {
                properties[key] = propertyValue(value)
            }
        }
        if !properties.isEmpty { fields["properties"] = .object(properties) }
        var draft = try InstallationInput.parse(BodyReader(fields))
        guard draft.installationID != nil || draft.deviceToken != nil else {
            throw ServiceError.missing("deviceToken", "The row has neither deviceToken nor installationId: there is nothing to push to.")
        }
        let updatedAt = try leanCloudDate(object["updatedAt"], field: "updatedAt")
        draft.createdAt = try leanCloudDate(object["createdAt"], field: "createdAt")
        switch object["valid"] {
        case nil, .null?, .bool(true)?: break
        case .bool(false)?: draft.inactive = .init(reason: leanCloudInvalidReason, at: updatedAt)
        default: throw ServiceError.invalid("valid", "valid must be true or false.")
        }
        return .installation(objectID: objectID, draft)
    }

    /// The LeanCloud column a Herald field came from, for error reports (`tags[2]` → `channels[2]`,
    /// `properties.level` → `level`).
    static func leanCloudColumn(_ field: String?) -> String? {
        guard let field else { return nil }
        if field.hasPrefix("properties.") { return String(field.dropFirst("properties.".count)) }
        for (column, herald) in leanCloudFields where field == herald || field.hasPrefix(herald + "[") {
            return column + field.dropFirst(herald.count)
        }
        return field
    }

    /// A date as LeanCloud writes it: an ISO 8601 string (createdAt, updatedAt) or `{"__type": "Date", "iso": ...}`.
    static func leanCloudDate(_ value: JSON?, field: String) throws -> Date? {
        guard let value, !value.isNull else { return nil }
        let text = value.stringValue ?? (value["__type"]?.stringValue == "Date" ? value["iso"]?.stringValue : nil)
        guard let text, let date = ISO8601.parse(text) else {
            throw ServiceError.invalid(field, "\(field) must be an ISO 8601 time or {\"__type\": \"Date\", \"iso\": \"2026-05-01T08:00:00.000Z\"}.")
        }
        return date
    }

    /// Herald's properties hold strings, numbers, booleans and null: a Date column keeps its ISO text, and
    /// other structured values (pointers, files, arrays, objects) their JSON text.
    static func propertyValue(_ value: JSON) -> JSON {
        switch value {
        case .string, .number, .bool, .null: return value
        default:
            if value["__type"]?.stringValue == "Date", let iso = value["iso"]?.stringValue { return .string(iso) }
            return .string(value.encoded)
        }
    }
}
