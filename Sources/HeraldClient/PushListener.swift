/// Receives pushes as the app sees them, in each of the three states an app can be in. Implement only
/// what you need: every method has a default that does nothing.
///
/// Add listeners with ``HeraldClient/addListener(_:)`` and remove them with
/// ``HeraldClient/removeListener(_:)`` (the client holds them weakly, so a listener that goes away is
/// dropped on its own). A `@MainActor` view controller can be a listener.
public protocol PushListener: AnyObject, Sendable {
    /// The user opened the notification: tapped it (which may have launched the app: `coldLaunch`)
    /// or chose one of its actions (`actionIdentifier`, nil for the default tap).
    func pushOpened(_ notification: PushNotification, actionIdentifier: String?, coldLaunch: Bool) async
    /// A push arrived while the app is in the foreground.
    func pushReceivedInForeground(_ notification: PushNotification) async
    /// A push woke the app in the background (content-available). Return what the work achieved.
    func pushReceivedInBackground(_ notification: PushNotification) async -> BackgroundFetchResult
}

extension PushListener {
    public func pushOpened(_ notification: PushNotification, actionIdentifier: String?, coldLaunch: Bool) async {}
    public func pushReceivedInForeground(_ notification: PushNotification) async {}
    public func pushReceivedInBackground(_ notification: PushNotification) async -> BackgroundFetchResult { .noData }
}

/// What a background push achieved, handed back to the system (`UIBackgroundFetchResult` on iOS),
/// which uses it to budget the app's future background time.
public enum BackgroundFetchResult: Sendable, Equatable {
    case newData
    case noData
    case failed

    /// Several listeners' results as one: new data wins (the work was worth waking for), then failure.
    public static func combined(_ results: [BackgroundFetchResult]) -> BackgroundFetchResult {
        if results.contains(.newData) { return .newData }
        if results.contains(.failed) { return .failed }
        return .noData
    }
}
