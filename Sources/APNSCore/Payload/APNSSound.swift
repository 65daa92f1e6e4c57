/// The `aps.sound` value: a sound file name, or the dictionary that plays a critical alert.
public enum APNSSound: Sendable, Equatable {
    /// `"sound": "<file>"`: a file in the app bundle or `Library/Sounds`.
    case named(String)
    /// `"sound": {"critical": 1, "name": …, "volume": …}` (needs Apple's critical-alert entitlement).
    case critical(APNSCriticalSound)

    /// `"sound": "default"`: the system sound.
    public static let `default` = APNSSound.named("default")
}

extension APNSSound: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        self = .named(value)
    }
}

/// The dictionary form of `aps.sound`.
public struct APNSCriticalSound: Sendable, Equatable {
    /// `critical`: `1` plays it as a critical alert (written as 1 or 0).
    public var isCritical: Bool
    /// `name`: the sound file, or `"default"`.
    public var name: String
    /// `volume`: 0 (silent) to 1 (full).
    public var volume: Double?

    public init(isCritical: Bool = true, name: String = "default", volume: Double? = nil) {
        self.isCritical = isCritical
        self.name = name
        self.volume = volume
    }
}
