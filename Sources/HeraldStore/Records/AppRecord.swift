import Foundation

/// An app: one bundle, its keys, its credentials and its installations.
public struct AppRecord: Sendable, Equatable {
    public var id: String
    public var name: String
    /// The default `apns-topic` (bundle id) when an installation or push gives none.
    public var topic: String?
    /// Time zone for local-time delivery to installations that report none.
    public var defaultTimeZone: String
    /// Devices per second across all of the app's pushes; nil means unlimited.
    public var rateLimit: Int?
    /// Set when APNs rejected the app's credential: delivery stops until a new credential is uploaded.
    public var pausedReason: String?
    public var pausedAt: Date?
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: String, name: String, topic: String?, defaultTimeZone: String, rateLimit: Int?,
                pausedReason: String? = nil, pausedAt: Date? = nil, createdAt: Date, updatedAt: Date) {
        self.id = id; self.name = name; self.topic = topic; self.defaultTimeZone = defaultTimeZone
        self.rateLimit = rateLimit; self.pausedReason = pausedReason; self.pausedAt = pausedAt
        self.createdAt = createdAt; self.updatedAt = updatedAt
    }
}
