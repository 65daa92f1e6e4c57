import Foundation

/// An app's pushes created in one interval (`start` ..< `start` + the interval), with what became of
/// their deliveries: counted on the pushes, so a delivery counts in the interval its push was created in.
public struct PushStatisticsBucket: Sendable, Equatable {
    public var start: Date
    public var pushes: Int
    public var targeted: Int
    public var sent: Int
    public var failed: Int
    public var opened: Int
    public var failedByReason: [String: Int]

    public init(start: Date, pushes: Int = 0, targeted: Int = 0, sent: Int = 0, failed: Int = 0, opened: Int = 0, failedByReason: [String: Int] = [:]) {
        self.start = start; self.pushes = pushes; self.targeted = targeted; self.sent = sent; self.failed = failed
        self.opened = opened; self.failedByReason = failedByReason
    }
}

/// How many installations of an app can receive pushes, and how many were retired (410, deleted tokens).
public struct InstallationCounts: Sendable, Equatable {
    public var active: Int
    public var retired: Int

    public init(active: Int, retired: Int) { self.active = active; self.retired = retired }
}
