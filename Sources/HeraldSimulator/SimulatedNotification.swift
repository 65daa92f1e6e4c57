import APNSCore
import Foundation

/// One notification as a simulated device receives it: what the provider sent and when.
public struct SimulatedNotification: Sendable, Equatable, Codable {
    /// How the notification reached the simulator.
    public enum Source: String, Sendable, Codable {
        case http2, legacy, apnsFile
    }

    public var apnsID: String
    public var deviceToken: String
    public var bundleID: String
    public var topic: String
    public var pushType: String
    public var priority: Int
    /// From `apns-expiration`; nil when the header was absent (the default storage time applies).
    public var expiration: Date?
    public var collapseID: String?
    /// The `apns-*` request headers as received (lowercase names).
    public var headers: NotificationHeaders
    public var payload: [UInt8]
    public var source: Source
    public var receivedAt: Date
    /// When the device got it; nil while stored or held.
    public var deliveredAt: Date?
    /// The badge it sets (`aps.badge`), nil when it leaves the badge alone.
    public var badge: Int?

    public init(apnsID: String, deviceToken: String, bundleID: String, topic: String, pushType: String, priority: Int,
                expiration: Date?, collapseID: String?, headers: NotificationHeaders, payload: [UInt8],
                source: Source, receivedAt: Date, deliveredAt: Date? = nil, badge: Int?? = .none) {
        self.apnsID = apnsID
        self.deviceToken = deviceToken
        self.bundleID = bundleID
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.headers = headers
        self.payload = payload
        self.source = source
        self.receivedAt = receivedAt
        self.deliveredAt = deliveredAt
        // Callers that parsed the payload already pass the badge; others have it read here.
        self.badge = badge ?? Self.badge(in: payload)
    }

    /// `apns-expiration: 0`: one attempt, never stored.
    var isDoNotStore: Bool { expiration == Date(timeIntervalSince1970: 0) }

    /// `aps.badge` of a payload, if numeric.
    static func badge(in payload: [UInt8]) -> Int? {
        // Most payloads have no badge: skip the JSON parse unless the word appears at all.
        guard payload.count >= 7, containsBadgeKey(payload), let value = try? JSONValue(parsing: payload) else { return nil }
        return value["aps"]?["badge"]?.intValue
    }

    private static let badgeKey = Array("\"badge\"".utf8)

    private static func containsBadgeKey(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            badgeKey.withUnsafeBufferPointer { key in
                guard buffer.count >= key.count else { return false }
                var i = 0
                let last = buffer.count - key.count
                while i <= last {
                    if buffer[i] == 0x22, buffer[i + 1] == 0x62, memcmp(buffer.baseAddress! + i, key.baseAddress!, key.count) == 0 {
                        return true
                    }
                    i += 1
                }
                return false
            }
        }
    }
}
