import Foundation

extension HeraldClient {
    /// Everything a ``HeraldClient`` needs: where the server is, which app it is, and the injectable
    /// pieces (storage, device facts, clock, sleep, badge) that tests and simulators replace.
    public struct Configuration: Sendable {
        /// The Herald server, e.g. `https://push.example.com`. Paths such as `/v1/installations` are appended.
        public var serverURL: URL
        /// The app's client key, sent as `Authorization: Bearer <clientKey>`; the server infers the app from it.
        public var clientKey: String
        /// The APNs environment of this build's device tokens.
        public var environment: PushEnvironment
        /// The APNs topic, normally the app's bundle identifier.
        public var topic: String?
        /// Where the installation id and the synced state are kept.
        public var storage: any KeyValueStorage
        /// Locale, time zone, versions and model sent with the installation; read when each change is synced.
        public var deviceInfo: @Sendable () -> DeviceInfo
        /// How failed requests are retried.
        public var retryPolicy: RetryPolicy
        /// How long an unchanged installation goes without being re-sent. Re-sending keeps it fresh on the
        /// server and reactivates it if the server had deactivated the token.
        public var revalidationInterval: TimeInterval
        /// How many reported push ids are remembered to avoid reporting an opening twice.
        public var openHistoryLimit: Int
        /// Timeout of one HTTP request, in seconds.
        public var requestTimeout: TimeInterval
        /// Sets the app icon's badge locally; the default on iOS uses UNUserNotificationCenter, elsewhere it does nothing.
        public var badgeSetter: @Sendable (Int) async -> Void
        /// The current time.
        public var now: @Sendable () -> Date
        /// Waits between retries; throws when the task is cancelled.
        public var sleep: @Sendable (TimeInterval) async throws -> Void

        public init(
            serverURL: URL,
            clientKey: String,
            environment: PushEnvironment,
            topic: String? = nil,
            storage: any KeyValueStorage,
            deviceInfo: @escaping @Sendable () -> DeviceInfo = { DeviceInfo.current },
            retryPolicy: RetryPolicy = .default,
            revalidationInterval: TimeInterval = 24 * 3600,
            openHistoryLimit: Int = 1000,
            requestTimeout: TimeInterval = 30,
            badgeSetter: @escaping @Sendable (Int) async -> Void = HeraldClient.systemBadgeSetter,
            now: @escaping @Sendable () -> Date = { Date() },
            sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { seconds in
                try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
            }
        ) {
            self.serverURL = serverURL
            self.clientKey = clientKey
            self.environment = environment
            self.topic = topic
            self.storage = storage
            self.deviceInfo = deviceInfo
            self.retryPolicy = retryPolicy
            self.revalidationInterval = revalidationInterval
            self.openHistoryLimit = max(1, openHistoryLimit)
            self.requestTimeout = requestTimeout
            self.badgeSetter = badgeSetter
            self.now = now
            self.sleep = sleep
        }
    }
}
