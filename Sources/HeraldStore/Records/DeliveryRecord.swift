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

/// Which installations a push goes to, in store terms. Every given tag list and environment must match.
public struct AudienceSelector: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        case all
        case tokens([String])
        case installationIDs([String])
        case aliases([String])
        case userIDs([String])
    }
    public var source: Source
    public var tagsAny: [String]?
    public var tagsAll: [String]?
    public var tagsNone: [String]?
    public var environment: String?

    public init(source: Source, tagsAny: [String]? = nil, tagsAll: [String]? = nil, tagsNone: [String]? = nil, environment: String? = nil) {
        self.source = source; self.tagsAny = tagsAny; self.tagsAll = tagsAll; self.tagsNone = tagsNone; self.environment = environment
    }
}

/// An installation as fan-out sees it: only what planning a delivery needs.
public struct AudienceMember: Sendable {
    public var seq: Int64
    public var id: String
    public var deviceToken: String
    public var environment: String
    public var locale: String?
    public var timeZone: String?
    public var appVersion: String?
    public var properties: String
}

/// What fan-out decided for one member: its payload variant and earliest send time.
public struct PlannedDelivery: Sendable {
    public var seq: Int64
    public var installationID: String
    public var deviceToken: String
    public var environment: String
    public var variant: String
    public var notBefore: Date

    public init(seq: Int64, installationID: String, deviceToken: String, environment: String, variant: String, notBefore: Date) {
        self.seq = seq; self.installationID = installationID; self.deviceToken = deviceToken
        self.environment = environment; self.variant = variant; self.notBefore = notBefore
    }
}

/// A badge change a push applies to every installation it reaches, atomically per installation.
public enum BadgeChange: Sendable, Equatable {
    case set(Int)
    case add(Int)
}

/// Result of one fan-out step.
public struct FanOutProgress: Sendable {
    public var scanned: Int
    public var planned: Int
    public var done: Bool
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
}

/// What happened to one claimed delivery.
public struct DeliveryOutcome: Sendable {
    public enum Kind: Sendable {
        case sent(apnsID: String, status: Int)
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
    public var apnsID: String?
    public var status: Int?
    public var reason: String?
    public var badge: Int?
    public var updatedAt: Date
}
