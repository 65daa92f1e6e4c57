/// `aps.interruption-level`: how strongly the notification may interrupt (iOS 15+). Open set.
public struct APNSInterruptionLevel: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// Added to the list silently, no sound, no screen wake.
    public static let passive = APNSInterruptionLevel(rawValue: "passive")
    /// The default: sound and screen wake.
    public static let active = APNSInterruptionLevel(rawValue: "active")
    /// Breaks through Focus (needs the Time Sensitive capability).
    public static let timeSensitive = APNSInterruptionLevel(rawValue: "time-sensitive")
    /// Breaks through Focus and the mute switch (needs Apple's entitlement).
    public static let critical = APNSInterruptionLevel(rawValue: "critical")
}

/// `aps.event` of a Live Activity push. Open set.
public struct APNSLiveActivityEvent: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// Push-to-start: needs `attributes-type`, `attributes` and an `alert`.
    public static let start = APNSLiveActivityEvent(rawValue: "start")
    /// New `content-state`.
    public static let update = APNSLiveActivityEvent(rawValue: "update")
    /// End the activity, ideally with a final `content-state`.
    public static let end = APNSLiveActivityEvent(rawValue: "end")
}
