/// Counters the inspection API reports (`GET /stats`) and `reset` clears.
public struct SimulatorStatistics: Sendable, Equatable, Codable {
    /// Provider requests answered 200 (HTTP/2 and legacy).
    public var accepted = 0
    /// Refused requests by APNs reason (faults included).
    public var rejected: [String: Int] = [:]
    /// Notifications a device received.
    public var delivered = 0
    /// Notifications kept for an offline device, and how many of those replaced an older one.
    public var stored = 0
    public var replacedWhileStored = 0
    /// Notifications dropped: `apns-expiration` 0 for an offline device, or expired before reconnect.
    public var droppedExpired = 0
    /// Low-priority notifications held for a burst.
    public var held = 0
    /// apns-id → times accepted, for ids accepted more than once.
    public var duplicates: [String: Int] = [:]
    public var opens = 0
    /// Faults injected, by kind (`reset`, `neverAnswer`, `delay`, `goAway`, and the reasons of injected errors).
    public var faults: [String: Int] = [:]

    public init() {}

    public var rejectedTotal: Int { rejected.values.reduce(0, +) }
}
