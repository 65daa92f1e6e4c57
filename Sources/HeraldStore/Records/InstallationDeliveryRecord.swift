import Foundation

/// One delivery made to an installation, with the push it belongs to: a device's history, newest first.
public struct InstallationDeliveryRecord: Sendable, Equatable {
    public var deliveryID: Int64
    public var pushID: String
    public var pushStatus: PushStatus
    public var pushCreatedAt: Date
    /// The push's stored request (JSON text), from which a caller takes what it shows (the alert's title).
    public var pushRequest: String
    public var state: DeliveryState
    public var attempts: Int
    public var status: Int?
    public var reason: String?
    public var updatedAt: Date

    public init(deliveryID: Int64, pushID: String, pushStatus: PushStatus, pushCreatedAt: Date, pushRequest: String,
                state: DeliveryState, attempts: Int, status: Int?, reason: String?, updatedAt: Date) {
        self.deliveryID = deliveryID; self.pushID = pushID; self.pushStatus = pushStatus; self.pushCreatedAt = pushCreatedAt
        self.pushRequest = pushRequest; self.state = state; self.attempts = attempts; self.status = status
        self.reason = reason; self.updatedAt = updatedAt
    }
}
