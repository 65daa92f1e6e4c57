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

