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
    public var headers: [String: String]
    public var payload: [UInt8]
    public var source: Source
    public var receivedAt: Date
    /// When the device got it; nil while stored or held.
    public var deliveredAt: Date?

    public init(apnsID: String, deviceToken: String, bundleID: String, topic: String, pushType: String, priority: Int,
                expiration: Date?, collapseID: String?, headers: [String: String], payload: [UInt8],
                source: Source, receivedAt: Date, deliveredAt: Date? = nil) {
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
    }

    /// `apns-expiration: 0`: one attempt, never stored.
    var isDoNotStore: Bool { expiration == Date(timeIntervalSince1970: 0) }

    /// The badge this notification sets, if its `aps` has a numeric `badge`.
    var badge: Int? {
        // Most payloads have no badge: skip the JSON parse unless the word appears at all.
        guard payload.count >= 7, Self.containsBadgeKey(payload),
              let value = try? JSONValue(parsing: payload) else { return nil }
        return value["aps"]?["badge"]?.intValue
    }

    private static let badgeKey = Array("\"badge\"".utf8)

    private static func containsBadgeKey(_ bytes: [UInt8]) -> Bool {
        let key = badgeKey
        guard bytes.count >= key.count else { return false }
        for start in 0...(bytes.count - key.count) where bytes[start] == key[0] {
            if bytes[start..<(start + key.count)].elementsEqual(key) { return true }
        }
        return false
    }
}
