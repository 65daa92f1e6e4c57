import Foundation

/// Filters for listing installations. Every set field must match.
public struct InstallationQuery: Sendable {
    public var tag: String?
    public var alias: String?
    public var userID: String?
    public var deviceToken: String?
    public var active: Bool?
    public var updatedSince: Date?
    public var afterSeq: Int64
    public var limit: Int

    public init(tag: String? = nil, alias: String? = nil, userID: String? = nil, deviceToken: String? = nil,
                active: Bool? = nil, updatedSince: Date? = nil, afterSeq: Int64 = 0, limit: Int = 100) {
        self.tag = tag; self.alias = alias; self.userID = userID; self.deviceToken = deviceToken
        self.active = active; self.updatedSince = updatedSince; self.afterSeq = afterSeq; self.limit = limit
    }
}
