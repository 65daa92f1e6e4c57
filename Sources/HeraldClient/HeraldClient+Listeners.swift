extension HeraldClient {
    /// Adds a listener (once: adding it again does nothing). Held weakly.
    public func addListener(_ listener: any PushListener) {
        listeners.add(listener)
    }

    /// Removes a listener.
    public func removeListener(_ listener: any PushListener) {
        listeners.remove(listener)
    }

    /// The number of live listeners.
    public var listenerCount: Int {
        listeners.live.count
    }

    /// Call when the user opened a notification: from `userNotificationCenter(_:didReceive:)`, or with
    /// the launch options' remote notification when the app was launched by a tap (`coldLaunch`).
    ///
    /// Tells the listeners (once per push, even when both paths deliver the same tap) and starts
    /// reporting the opening to the server in the background (once per push and device; a report that
    /// still fails after its retries is sent the next time the same push is opened). Returns once the
    /// listeners have run, so the system's callback is not held up by the network.
    public func handleOpened(_ notification: PushNotification, actionIdentifier: String? = nil,
                             coldLaunch: Bool = false) async {
        let firstTime = notification.heraldPushId.map { dispatchedOpens.insert($0).inserted } ?? true
        if firstTime {
            for listener in listeners.live {
                await listener.pushOpened(notification, actionIdentifier: actionIdentifier, coldLaunch: coldLaunch)
            }
        }
        if notification.heraldPushId != nil {
            Task { _ = try? await self.trackOpen(notification) }
        }
    }

    /// Call when a push arrives while the app is in the foreground (`userNotificationCenter(_:willPresent:)`).
    public func handleForeground(_ notification: PushNotification) async {
        for listener in listeners.live {
            await listener.pushReceivedInForeground(notification)
        }
    }

    /// Call from `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)` and pass the
    /// result to the completion handler. With no listener the result is `.noData`.
    public func handleBackground(_ notification: PushNotification) async -> BackgroundFetchResult {
        var results: [BackgroundFetchResult] = []
        for listener in listeners.live {
            results.append(await listener.pushReceivedInBackground(notification))
        }
        return .combined(results)
    }
}
