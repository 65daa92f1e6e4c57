import Foundation
import HeraldStore

/// `_Installation` in LeanCloud's shape, both ways. Registry fields map to Herald's (channels → tags, apnsTopic →
/// topic, localeIdentifier → locale, valid: false → inactive); `apnsTeamId`, `deviceProfile` and every custom
/// column are kept as custom properties and come back as columns. Operations (`{"__op": ...}`) apply to the
/// stored installation: `AddUnique`/`Add`/`Remove`/`Delete` on channels, `Increment` on badge (and numeric
/// columns), `Delete` on any optional field.
enum LeanCloudInstallation {
    /// Apple platforms the SDKs report; all of them are APNs devices.
    static let appleDeviceTypes: Set<String> = ["ios", "tvos", "watchos", "macos", "visionos"]
    /// Read-only or SDK bookkeeping keys, accepted and dropped.
    static let ignored: Set<String> = ["objectId", "createdAt", "updatedAt", "ACL", "__internalId", "__type", "className", "deviceType", "fetchWhenSave"]
    /// LeanCloud column → Herald field, for the columns Herald keeps as registry fields.
    static let fields: [String: String] = [
        "installationId": "installationId", "deviceToken": "deviceToken", "timeZone": "timeZone",
        "apnsTopic": "topic", "localeIdentifier": "locale", "appVersion": "appVersion",
    ]

    /// The draft that saving `body` over `existing` (nil for a new installation) makes. `checking`: the stored
    /// installation is not known yet (the body is checked and its keys read before the store finds it), so a
    /// badge `Increment`, whose result depends on it, is checked for its amount only.
    static func draft(_ body: [String: JSON], existing: InstallationRecord?, checking: Bool = false) throws -> InstallationDraft {
        if let type = body["deviceType"] {
            guard let name = type.stringValue, appleDeviceTypes.contains(name) else {
                throw ServiceError.invalid("deviceType", "Herald delivers through APNs only; deviceType must be one of \(appleDeviceTypes.sorted().joined(separator: ", ")) (Android installations are not supported).")
            }
        }
        var herald: [String: JSON] = [:]
        var properties = existing.flatMap { try? JSON(parsing: $0.properties) }?.objectValue ?? [:]
        var propertiesChanged = false
        var tags: [String]?
        var badge: Int?
        var inactive = false
        for key in body.keys.sorted() where !ignored.contains(key) {
            let value = body[key]!
            let op = value.objectValue?["__op"]?.stringValue
            switch key {
            case "channels":
                tags = try channels(value, op: op, current: existing?.tags ?? [])
            case "badge":
                if op == "Increment" {
                    let (sum, overflow) = (existing?.badge ?? 0).addingReportingOverflow(try amount(value, key))
                    guard !overflow else { throw ServiceError.invalid("badge", "badge: Increment's amount is out of range; the badge must stay between 0 and 999999.") }
                    badge = checking ? nil : sum
                } else if op == "Delete" {
                    badge = 0
                } else {
                    guard let n = value.intValue else { throw ServiceError.invalid("badge", "badge must be an integer or {\"__op\":\"Increment\",\"amount\":n}.") }
                    badge = n
                }
            case "valid":
                guard let flag = value.boolValue else { throw ServiceError.invalid("valid", "valid must be true or false.") }
                inactive = !flag
            case _ where fields[key] != nil:
                herald[fields[key]!] = op == "Delete" ? .null : value
                if let op, op != "Delete" { throw ServiceError.invalid(key, "\(key) takes a value or {\"__op\":\"Delete\"}, not \(op).") }
            default:
                propertiesChanged = true
                switch op {
                case nil: properties[key] = value
                case "Delete"?: properties[key] = nil
                case "Increment"?: properties[key] = .number((properties[key]?.doubleValue ?? 0) + Double(try amount(value, key)))
                case let other?: throw ServiceError.invalid(key, "\(key): \(other) is not supported on custom columns; use a value, Increment or Delete.")
                }
            }
        }
        if let tags { herald["tags"] = .array(tags.map(JSON.string)) }
        if let badge { herald["badge"] = .int(badge) }
        if propertiesChanged { herald["properties"] = .object(properties) }
        var draft: InstallationDraft
        do {
            draft = try InstallationInput.parse(BodyReader(herald))
            try InstallationsService.checkText(draft)   // here, so that the error names LeanCloud's column
        } catch var error as ServiceError {
            error.field = error.field.map(leanCloudName)
            throw error
        }
        if inactive { draft.inactive = .init(reason: "valid=false", at: nil) }
        return draft
    }

    /// The channels after a value or an array operation.
    static func channels(_ value: JSON, op: String?, current: [String]) throws -> [String] {
        func list(_ v: JSON?) throws -> [String] {
            guard let items = v?.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                throw ServiceError.invalid("channels", "channels must be a list of channel names, or {\"__op\":\"AddUnique\"|\"Remove\",\"objects\":[names]}.")
            }
            return items.compactMap(\.stringValue)
        }
        switch op {
        case nil: return try list(value)
        case "AddUnique", "Add":   // channels are a set in Herald: Add cannot repeat one either
            var result = current
            for name in try list(value["objects"]) where !result.contains(name) { result.append(name) }
            return result
        case "Remove": let gone = Set(try list(value["objects"])); return current.filter { !gone.contains($0) }
        case "Delete": return []
        case let other?: throw ServiceError.invalid("channels", "channels: \(other) is not supported; use AddUnique, Add, Remove or Delete.")
        }
    }

    static func amount(_ value: JSON, _ key: String) throws -> Int {
        guard let n = value["amount"].map({ $0.intValue }) ?? 1 else { throw ServiceError.invalid(key, "\(key): Increment's amount must be an integer.") }
        return n
    }

    /// Herald's field names in errors, as the LeanCloud caller named them.
    static func leanCloudName(_ field: String) -> String {
        if field.hasPrefix("tags") { return "channels" + field.dropFirst(4) }
        if field.hasPrefix("properties.") { return String(field.dropFirst(11)) }
        return fields.first { $0.value == field }?.key ?? field
    }

    /// The installation as LeanCloud answers it (fetch, query, fetchWhenSave).
    static func json(_ r: InstallationRecord) -> [String: JSON] {
        var o = (try? JSON(parsing: r.properties))?.objectValue ?? [:]
        o["objectId"] = .string(r.id)
        o["installationId"] = .string(r.installationID)
        o["deviceType"] = "ios"
        o["deviceToken"] = .optional(r.deviceToken)
        o["channels"] = .array(r.tags.map(JSON.string))
        o["badge"] = .int(r.badge)
        o["valid"] = .bool(r.active)
        for (key, value) in [("timeZone", r.timeZone), ("apnsTopic", r.topic), ("localeIdentifier", r.locale), ("appVersion", r.appVersion)] {
            o[key] = value.map(JSON.string)
        }
        o["createdAt"] = ISO8601.json(r.createdAt)
        o["updatedAt"] = ISO8601.json(r.updatedAt)
        return o
    }

    /// Only the `keys` asked for, plus the ones LeanCloud always returns.
    static func select(_ object: [String: JSON], keys: Set<String>?) -> [String: JSON] {
        guard let keys else { return object }
        return object.filter { keys.contains($0.key) || ["objectId", "createdAt", "updatedAt"].contains($0.key) }
    }
}
