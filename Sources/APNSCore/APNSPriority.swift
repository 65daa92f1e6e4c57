/// The `apns-priority` header: how urgently APNs should deliver.
///
/// An open set like ``APNSPushType``: unknown values can be represented and are rejected by
/// APNs with `BadPriority`.
public struct APNSPriority: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    /// The header value.
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Parses a header value; `nil` unless it is one of the documented values 10, 5 or 1.
    public init?(headerValue: String) {
        guard let value = Int(headerValue), Self.allKnown.contains(APNSPriority(rawValue: value)) else {
            return nil
        }
        self.rawValue = value
    }

    public var description: String { String(rawValue) }

    /// `10`: deliver now. Not allowed for background pushes.
    public static let immediately = APNSPriority(rawValue: 10)
    /// `5`: deliver when the device's power allows; may be grouped. Required for background pushes.
    public static let consideringDevicePower = APNSPriority(rawValue: 5)
    /// `1`: put power above everything and never wake the device.
    public static let prioritizingDevicePower = APNSPriority(rawValue: 1)

    /// The documented priorities.
    public static let allKnown: [APNSPriority] = [.immediately, .consideringDevicePower, .prioritizingDevicePower]
}
