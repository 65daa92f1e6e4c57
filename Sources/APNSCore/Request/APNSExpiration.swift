import Foundation

/// The `apns-expiration` header: until when APNs stores and retries a notification the device
/// could not take.
///
/// Leaving it out (`nil` on ``APNSNotification``) lets APNs apply its own storage policy.
/// The value is an absolute UNIX time: `300` means 00:05 on 1 January 1970, not five minutes.
public struct APNSExpiration: Sendable, Hashable, CustomStringConvertible {
    /// Seconds since 1970 (UTC); `0` means deliver once, never store.
    public let unixSeconds: Int

    public init(unixSeconds: Int) {
        self.unixSeconds = unixSeconds
    }

    /// `0`: one delivery attempt, no storage.
    public static let immediately = APNSExpiration(unixSeconds: 0)

    /// Store until `date` (truncated to whole seconds).
    public static func at(_ date: Date) -> APNSExpiration {
        APNSExpiration(unixSeconds: Int(date.timeIntervalSince1970.rounded(.down)))
    }

    /// Store for `seconds` counted from `now` (time is injected so callers and tests agree).
    public static func after(_ seconds: Int, from now: Date) -> APNSExpiration {
        .at(now.addingTimeInterval(TimeInterval(seconds)))
    }

    /// The expiry date, or `nil` for ``immediately``.
    public var date: Date? {
        unixSeconds == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(unixSeconds))
    }

    /// The header value.
    public var headerValue: String { String(unixSeconds) }

    public var description: String { headerValue }
}
