import Foundation

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
    /// The rows inserted in flight, for the caller to send now.
    public var claimed: [ClaimedDelivery]

    public init(scanned: Int, planned: Int, done: Bool, claimed: [ClaimedDelivery]) {
        self.scanned = scanned; self.planned = planned; self.done = done; self.claimed = claimed
    }
}

/// A member of a fan-out page that was read without writing, with what became of it when the page went
/// out (`recordPage` writes its row once).
public struct PageDelivery: Sendable {
    public var planned: PlannedDelivery
    /// nil: not attempted (not due yet, over the rate limit, the app paused): written as pending.
    public var outcome: DeliveryOutcome.Kind?

    public init(planned: PlannedDelivery, outcome: DeliveryOutcome.Kind?) {
        self.planned = planned; self.outcome = outcome
    }
}
