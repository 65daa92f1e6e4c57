import Foundation

/// A device installation of an app, as stored.
public struct InstallationRecord: Sendable, Equatable {
    /// Store-internal ordering key: the keyset cursor for fan-out and pagination.
    public var seq: Int64
    public var id: String
    public var appID: String
    public var installationID: String
    public var deviceToken: String?
    public var environment: String
    public var topic: String?
    public var tags: [String]
    public var alias: String?
    public var userID: String?
    public var locale: String?
    public var timeZone: String?
    public var badge: Int
    public var appVersion: String?
    public var osVersion: String?
    public var deviceModel: String?
    /// Custom properties as a JSON object text.
    public var properties: String
    public var active: Bool
    public var inactiveReason: String?
    public var inactiveAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    public var lastSeenAt: Date
    /// When the device token was last registered: a 410 older than this must not retire the installation.
    public var tokenUpdatedAt: Date

    public init(seq: Int64, id: String, appID: String, installationID: String, deviceToken: String?, environment: String,
                topic: String?, tags: [String], alias: String?, userID: String?, locale: String?, timeZone: String?, badge: Int,
                appVersion: String?, osVersion: String?, deviceModel: String?, properties: String, active: Bool,
                inactiveReason: String?, inactiveAt: Date?, createdAt: Date, updatedAt: Date, lastSeenAt: Date, tokenUpdatedAt: Date) {
        self.seq = seq; self.id = id; self.appID = appID; self.installationID = installationID; self.deviceToken = deviceToken
        self.environment = environment; self.topic = topic; self.tags = tags; self.alias = alias; self.userID = userID
        self.locale = locale; self.timeZone = timeZone; self.badge = badge; self.appVersion = appVersion
        self.osVersion = osVersion; self.deviceModel = deviceModel; self.properties = properties; self.active = active
        self.inactiveReason = inactiveReason; self.inactiveAt = inactiveAt; self.createdAt = createdAt
        self.updatedAt = updatedAt; self.lastSeenAt = lastSeenAt; self.tokenUpdatedAt = tokenUpdatedAt
    }
}

