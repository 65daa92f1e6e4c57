import Foundation

extension HeraldClient {
    /// Sets the app icon's badge locally and on the server (which counts from there when a push
    /// increments the badge).
    public func setBadge(_ count: Int) async throws {
        guard count >= 0 else {
            throw HeraldClientError.invalidArgument(name: "badge", reason: "\(count) is negative; use 0 to clear the badge")
        }
        await configuration.badgeSetter(count)
        state.wanted.badge = count
        // The server may have counted pushes since the last value it acknowledged: always send the badge.
        state.acknowledged?.badge = nil
        try persist()
        try await sync()
    }

    /// Clears the badge locally and resets the server's count to 0: call it when the user has seen what
    /// the badge announced (typically when the app becomes active).
    public func resetBadge() async throws {
        try await setBadge(0)
    }

    /// The badge setter used when none is configured: `UNUserNotificationCenter` on Apple platforms,
    /// nothing elsewhere.
    public static var systemBadgeSetter: @Sendable (Int) async -> Void {
        { count in await setSystemBadge(count) }
    }
}
