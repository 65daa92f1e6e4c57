import Foundation

/// The installation as this client wants the server to hold it. Two copies are persisted: the wanted
/// state and the last state the server acknowledged; their difference is what a sync sends.
struct InstallationFields: Codable, Equatable, Sendable {
    var deviceToken: String?
    var environment: PushEnvironment?
    var topic: String?
    /// Sorted and unique, so equal sets compare equal.
    var tags: [String]?
    var alias: String?
    var userId: String?
    var locale: String?
    var timeZone: String?
    var badge: Int?
    var appVersion: String?
    var osVersion: String?
    var deviceModel: String?
    var properties: [String: JSONValue]?

    var tagSet: Set<String> {
        get { Set(tags ?? []) }
        set { tags = newValue.sorted() }
    }

    /// The fields as a JSON object; absent fields are left out.
    var jsonObject: [String: JSONValue] {
        guard let data = try? JSONEncoder().encode(self),
              let value = try? JSONDecoder().decode([String: JSONValue].self, from: data) else { return [:] }
        return value
    }

    /// The fields of `self` that differ from `acknowledged`, except tags (which go through the tags
    /// endpoint so tags added on the server are never overwritten). A field cleared locally is sent as null.
    func patch(from acknowledged: InstallationFields) -> [String: JSONValue] {
        let wanted = jsonObject
        let known = acknowledged.jsonObject
        var patch: [String: JSONValue] = [:]
        for key in Set(wanted.keys).union(known.keys) where key != "tags" && wanted[key] != known[key] {
            patch[key] = wanted[key] ?? .null
        }
        return patch
    }
}
