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
}

/// A create-or-update request for an installation: nil fields are left as they are.
public struct InstallationDraft: Sendable {
    public var installationID: String?
    public var deviceToken: String?
    public var environment: String?
    public var topic: String??
    public var tags: [String]?
    public var alias: String??
    public var userID: String??
    public var locale: String??
    public var timeZone: String??
    public var badge: Int?
    public var appVersion: String??
    public var osVersion: String??
    public var deviceModel: String??
    public var properties: String?

    public init(installationID: String? = nil, deviceToken: String? = nil, environment: String? = nil) {
        self.installationID = installationID
        self.deviceToken = deviceToken
        self.environment = environment
    }
}

/// How `upsertInstallation` finds the row to update.
public enum InstallationMatch: Sendable {
    /// By the client's installation id, falling back to the device token (re-installs keep the token).
    case installationIDOrToken
    /// Only the installation with this server id or installation id; nil when none.
    case existing(String)
}

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
