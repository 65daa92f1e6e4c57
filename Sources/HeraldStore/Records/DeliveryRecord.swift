import Foundation

/// Where one delivery row is. Stored as an integer.
public enum DeliveryState: Int, Sendable, CaseIterable {
    case pending = 0, inFlight = 1, sent = 2, failed = 3, cancelled = 4

    public var name: String {
        switch self {
        case .pending: "pending"
        case .inFlight: "inFlight"
        case .sent: "sent"
        case .failed: "failed"
        case .cancelled: "cancelled"
        }
    }
}

/// A delivery claimed by the dispatcher (state moved to in-flight).
public struct ClaimedDelivery: Sendable {
    public var id: Int64
    public var seq: Int64
    public var installationID: String
    public var deviceToken: String
    public var environment: String
    public var variant: String
    public var badge: Int?
    public var attempts: Int

    public init(id: Int64, seq: Int64, installationID: String, deviceToken: String, environment: String, variant: String, badge: Int?, attempts: Int) {
        self.id = id; self.seq = seq; self.installationID = installationID; self.deviceToken = deviceToken
        self.environment = environment; self.variant = variant; self.badge = badge; self.attempts = attempts
    }
}

/// What happened to one claimed delivery.
public struct DeliveryOutcome: Sendable {
    public enum Kind: Sendable {
        /// Accepted by APNs. The apns-id is not stored: it is derived from the push and the installation.
        case sent(status: Int)
        /// Permanent failure. `retire` deactivates the installation unless its token was registered after `timestamp`.
        case failed(reason: String, status: Int?, retire: Bool, timestamp: Date?)
        /// Transient failure: back to pending at `at`, one more attempt counted.
        case retry(at: Date, reason: String, status: Int?)
        /// Not attempted (credential paused, shutdown): back to pending, no attempt counted.
        case requeue
    }
    public var deliveryID: Int64
    public var seq: Int64
    public var deviceToken: String
    public var kind: Kind

    public init(deliveryID: Int64, seq: Int64, deviceToken: String, kind: Kind) {
        self.deliveryID = deliveryID; self.seq = seq; self.deviceToken = deviceToken; self.kind = kind
    }
}

/// One delivery row for status pages.
public struct DeliveryRecord: Sendable {
    public var id: Int64
    public var installationID: String
    public var state: DeliveryState
    public var attempts: Int
    public var status: Int?
    public var reason: String?
    public var badge: Int?
    public var updatedAt: Date

    public init(id: Int64, installationID: String, state: DeliveryState, attempts: Int, status: Int?, reason: String?,
                badge: Int?, updatedAt: Date) {
        self.id = id; self.installationID = installationID; self.state = state; self.attempts = attempts
        self.status = status; self.reason = reason; self.badge = badge; self.updatedAt = updatedAt
    }
}
