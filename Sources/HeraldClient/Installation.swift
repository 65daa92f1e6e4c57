import Foundation

/// An installation as the Herald server returns it: one app on one device.
public struct Installation: Sendable, Equatable, Decodable {
    /// The server's id for the installation.
    public var id: String
    /// The client-generated id (``HeraldClient/installationId``).
    public var installationId: String
    /// The APNs device token, lowercase hex.
    public var deviceToken: String?
    /// The APNs environment the token belongs to.
    public var environment: PushEnvironment?
    /// The APNs topic (bundle id).
    public var topic: String?
    /// The tags pushes can target.
    public var tags: [String]
    /// The alias pushes can target.
    public var alias: String?
    /// The app's user the installation belongs to.
    public var userId: String?
    /// The locale identifier, e.g. "zh-Hans_CN".
    public var locale: String?
    /// The IANA time zone.
    public var timeZone: String?
    /// The badge count the server keeps for badge increments.
    public var badge: Int?
    /// The app version.
    public var appVersion: String?
    /// The OS version.
    public var osVersion: String?
    /// The hardware model.
    public var deviceModel: String?
    /// The app's custom properties.
    public var properties: [String: JSONValue]?
    /// False once the server stopped pushing to the token (APNs said it is no longer valid).
    public var active: Bool
    /// When the server first registered the installation.
    public var createdAt: Date?
    /// When the server last changed it.
    public var updatedAt: Date?

    private enum CodingKeys: String, CodingKey {
        case id, installationId, deviceToken, environment, topic, tags, alias, userId, locale, timeZone, badge
        case appVersion, osVersion, deviceModel, properties, active, createdAt, updatedAt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        installationId = try c.decode(String.self, forKey: .installationId)
        deviceToken = try c.decodeIfPresent(String.self, forKey: .deviceToken)
        environment = try? c.decodeIfPresent(PushEnvironment.self, forKey: .environment)
        topic = try c.decodeIfPresent(String.self, forKey: .topic)
        tags = try c.decodeIfPresent([String].self, forKey: .tags) ?? []
        alias = try c.decodeIfPresent(String.self, forKey: .alias)
        userId = try c.decodeIfPresent(String.self, forKey: .userId)
        locale = try c.decodeIfPresent(String.self, forKey: .locale)
        timeZone = try c.decodeIfPresent(String.self, forKey: .timeZone)
        badge = try c.decodeIfPresent(JSONValue.self, forKey: .badge)?.intValue
        appVersion = try c.decodeIfPresent(String.self, forKey: .appVersion)
        osVersion = try c.decodeIfPresent(String.self, forKey: .osVersion)
        deviceModel = try c.decodeIfPresent(String.self, forKey: .deviceModel)
        properties = try c.decodeIfPresent([String: JSONValue].self, forKey: .properties)
        active = try c.decodeIfPresent(JSONValue.self, forKey: .active)?.boolValue ?? true
        createdAt = Installation.date(try c.decodeIfPresent(String.self, forKey: .createdAt))
        updatedAt = Installation.date(try c.decodeIfPresent(String.self, forKey: .updatedAt))
    }

    /// ISO 8601, with or without fractional seconds. The format style is Swift, not ICU: creating ICU date
    /// formatters on several threads at once crashed inside ICU on Linux (seen in the test suite).
    static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
