import Foundation

/// A simulated iPhone: apps installed with their tokens, what it received, what waits for it.
public struct Device: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    /// Online devices receive at once; offline ones get stored notifications when they come back.
    public var online: Bool
    public var createdAt: Date
    public var apps: [AppInstallation]
    /// Badge per bundle id, as the last delivered `aps.badge` left it.
    public var badges: [String: Int]
    /// Delivered notifications, oldest first, at most `inboxLimit`; not persisted.
    public var inbox: [SimulatedNotification]
    /// Store-and-forward: the newest undelivered notification per bundle id while offline.
    public var stored: [String: SimulatedNotification]
    /// Priority 5/1 notifications held for the next burst, and when the first was held.
    public var held: [SimulatedNotification]
    public var heldSince: Date?
    public var opens: [OpenReport]

    public init(id: String, name: String, online: Bool = true, createdAt: Date) {
        self.id = id
        self.name = name
        self.online = online
        self.createdAt = createdAt
        apps = []
        badges = [:]
        inbox = []
        stored = [:]
        held = []
        heldSince = nil
        opens = []
    }

    /// The current (not uninstalled) installation of `bundleID`, if any.
    public func installation(of bundleID: String) -> AppInstallation? {
        apps.last { $0.bundleID == bundleID && $0.uninstalledAt == nil }
    }

    enum OfflineOutcome { case online, dropped, stored(replaced: Bool) }

    /// Store-and-forward for an offline device: keeps `notification` as the app's newest (unless it is to
    /// be `dropping`: expired, or `apns-expiration: 0`). Does nothing to an online device.
    mutating func storeIfOffline(_ notification: SimulatedNotification, dropping: Bool) -> OfflineOutcome {
        guard !online else { return .online }
        if dropping { return .dropped }
        return .stored(replaced: stored.updateValue(notification, forKey: notification.bundleID) != nil)
    }

    enum CodingKeys: String, CodingKey { case id, name, online, createdAt, apps, badges, stored }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id), name: try c.decode(String.self, forKey: .name),
                  online: try c.decode(Bool.self, forKey: .online), createdAt: try c.decode(Date.self, forKey: .createdAt))
        apps = try c.decode([AppInstallation].self, forKey: .apps)
        badges = try c.decode([String: Int].self, forKey: .badges)
        stored = try c.decodeIfPresent([String: SimulatedNotification].self, forKey: .stored) ?? [:]
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(online, forKey: .online)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(apps, forKey: .apps)
        try c.encode(badges, forKey: .badges)
        try c.encode(stored, forKey: .stored)
    }
}

/// One install of an app on a device. Uninstalling keeps the record so its token answers 410.
public struct AppInstallation: Sendable, Codable, Equatable {
    public var bundleID: String
    public var environment: PushEnvironment
    /// Lowercase hex.
    public var token: String
    public var installedAt: Date
    public var uninstalledAt: Date?
}

/// A user opening a notification on a simulated device.
public struct OpenReport: Sendable, Codable, Equatable {
    public var deviceID: String
    public var bundleID: String
    public var deviceToken: String
    public var apnsID: String
    public var openedAt: Date
    /// The notification's custom keys (everything beside `aps`), as JSON text; herald's open tracking
    /// finds its push id there.
    public var customPayload: String?
}
