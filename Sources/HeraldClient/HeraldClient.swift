import Foundation

/// The app's connection to a Herald server: registers this installation (device token, tags, alias,
/// user id, properties), keeps it in sync, reports opened pushes, resets the badge, and hands received
/// pushes to listeners.
///
/// An actor, so every method is safe to call from any thread or task. Every change is persisted first
/// and then sent; a change that could not be sent (offline, server failing) stays pending and goes out
/// with the next call or ``sync()``. Nothing is sent before ``register(deviceToken:)``.
///
/// ```swift
/// let herald = try HeraldClient(configuration: .init(
///     serverURL: URL(string: "https://push.example.com")!, clientKey: "ck_live_…",
///     environment: .production, topic: "com.example.news",
///     storage: try FileStorage.applicationSupport()))
/// try await herald.register(deviceToken: tokenData)
/// try await herald.setTags(["news", "sports"])
/// ```
public actor HeraldClient {
    /// The configuration the client was made with.
    public nonisolated let configuration: Configuration
    /// This installation's id: generated on first use and kept in the configured storage.
    public nonisolated let installationId: String
    /// The installation id under the name JPush's SDK gives it (`JPUSHService.registrationID`): an app moving
    /// from JPush uploads this to its backend, which pushes to it as `audience.registration_id` through
    /// Herald's JPush-compatible API. Unlike JPush's, it is known before the first registration and never changes.
    public nonisolated var registrationID: String { installationId }

    var state: PersistedState
    var openHistory: OpenHistory
    let sender: RetryingSender
    var syncTask: Task<Void, any Error>?
    var openReports: [String: Task<Void, any Error>] = [:]
    var listeners = ListenerRegistry()
    var dispatchedOpens: Set<String> = []

    /// The installation as the server last returned it (nil until the server has answered a change in this process).
    public internal(set) var installation: Installation?

    /// Loads (or creates) the installation id and the synced state from `configuration.storage`.
    /// - Throws: ``HeraldClientError/storageFailed(_:)`` when the storage cannot be read or written.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        let state = try PersistedState.load(from: configuration.storage)
        self.state = state
        self.installationId = state.installationId
        self.openHistory = try OpenHistory.load(from: configuration.storage, limit: configuration.openHistoryLimit)
        self.sender = RetryingSender(
            transport: HTTPTransport(baseURL: configuration.serverURL, clientKey: configuration.clientKey,
                                     timeout: configuration.requestTimeout),
            policy: configuration.retryPolicy, now: configuration.now, sleep: configuration.sleep)
    }

    deinit {
        sender.transport.invalidate()
    }

    // MARK: - What the client holds

    /// The device token last registered, as lowercase hex.
    public var deviceToken: String? { state.wanted.deviceToken }
    /// The installation's tags.
    public var tags: Set<String> { state.wanted.tagSet }
    /// The installation's alias.
    public var alias: String? { state.wanted.alias }
    /// The user the installation belongs to.
    public var userId: String? { state.wanted.userId }
    /// The app's custom properties of the installation.
    public var properties: [String: JSONValue] { state.wanted.properties ?? [:] }
    /// True between ``register(deviceToken:)`` and ``unregister()``.
    public var isRegistered: Bool { state.isRegistered }
    /// True when a change has not reached the server yet.
    public var hasPendingChanges: Bool {
        var wanted = state.wanted
        fillAutomaticFields(&wanted)
        return state.isRegistered && wanted != state.acknowledged
    }

    // MARK: - Registration

    /// Registers the token APNs gave the app (call it from
    /// `didRegisterForRemoteNotificationsWithDeviceToken` on every launch). Sends the token with the
    /// environment, topic, locale, time zone, app and OS versions and device model, but only when one of
    /// them changed or the installation has not been confirmed for ``Configuration/revalidationInterval``.
    public func register(deviceToken: Data) async throws {
        try await register(deviceToken: DeviceToken(deviceToken))
    }

    /// Registers a device token (see ``register(deviceToken:)-(Data)``).
    public func register(deviceToken: DeviceToken) async throws {
        guard !deviceToken.bytes.isEmpty else {
            throw HeraldClientError.invalidDeviceToken("")
        }
        state.wanted.deviceToken = deviceToken.hex
        state.isRegistered = true
        try persist()
        try await sync()
    }

    /// Sends whatever has not reached the server yet; does nothing when all is in sync. Call it when the
    /// app becomes active, so changes made offline go out.
    public func sync() async throws {
        while let running = syncTask {
            // The server was just found unreachable or busy: report that rather than start another
            // round of retries at once. The change is stored and goes out with the next sync.
            if case .failure(let error) = await running.result, Self.isTransient(error) {
                throw error
            }
        }
        fillAutomaticFields(&state.wanted)
        guard state.isRegistered, state.wanted != state.acknowledged || revalidationDue else { return }
        let task = Task { try await self.performSync() }
        syncTask = task
        try await task.value
    }

    /// Deletes the installation on the server and forgets the token; tags, alias and properties stay
    /// and are sent again on the next ``register(deviceToken:)``.
    public func unregister() async throws {
        while let running = syncTask {
            _ = await running.result
        }
        guard state.isRegistered else { return }
        // Stop syncing before the DELETE goes out, so a change made meanwhile cannot recreate the installation.
        state.isRegistered = false
        if state.acknowledged != nil {
            do {
                _ = try await sender.send("DELETE", "/v1/installations/\(pathComponent(installationId))", body: nil,
                                          alsoAccept: [404])
            } catch {
                state.isRegistered = true
                throw error
            }
        }
        // Registered again while the DELETE was out: that registration stands.
        guard !state.isRegistered else { return }
        state.acknowledged = nil
        state.lastSyncedAt = nil
        state.wanted.deviceToken = nil
        installation = nil
        try persist()
    }

    // MARK: - Tags, alias, user, properties

    /// Replaces the installation's tags.
    public func setTags(_ tags: Set<String>) async throws {
        try InstallationRules.validate(tags: tags)
        state.wanted.tagSet = tags
        try await persistAndSync()
    }

    /// Adds tags to the installation.
    public func addTags(_ tags: Set<String>) async throws {
        try InstallationRules.validate(tags: tags)
        state.wanted.tagSet.formUnion(tags)
        try await persistAndSync()
    }

    /// Removes tags from the installation.
    public func removeTags(_ tags: Set<String>) async throws {
        state.wanted.tagSet.subtract(tags)
        try await persistAndSync()
    }

    /// Sets the alias (e.g. the app's account name), or clears it with nil.
    public func setAlias(_ alias: String?) async throws {
        try InstallationRules.validate(alias, name: "alias")
        state.wanted.alias = alias
        try await persistAndSync()
    }

    /// Sets the user id, or clears it with nil (on logout).
    public func setUserId(_ userId: String?) async throws {
        try InstallationRules.validate(userId, name: "userId")
        state.wanted.userId = userId
        try await persistAndSync()
    }

    /// Replaces all custom properties: at most 64 keys whose values are strings, numbers, booleans or null.
    public func setProperties(_ properties: [String: JSONValue]) async throws {
        try InstallationRules.validate(properties: properties)
        // Empty, not nil: the server clears properties on {} and ignores null.
        state.wanted.properties = properties
        try await persistAndSync()
    }

    /// Sets one custom property, or removes it with nil.
    public func setProperty(_ value: JSONValue?, forKey key: String) async throws {
        var properties = state.wanted.properties ?? [:]
        properties[key] = value
        try await setProperties(properties)
    }

    // MARK: - Internals

    func persist() throws {
        try state.save(to: configuration.storage)
    }

    private func persistAndSync() async throws {
        try persist()
        try await sync()
    }

    var revalidationDue: Bool {
        guard let last = state.lastSyncedAt else { return true }
        return configuration.now().timeIntervalSince(last) >= configuration.revalidationInterval
    }

    private func fillAutomaticFields(_ fields: inout InstallationFields) {
        let device = configuration.deviceInfo()
        fields.environment = configuration.environment
        fields.topic = configuration.topic
        fields.locale = InstallationRules.normalizedLocale(device.locale)
        fields.timeZone = device.timeZone
        fields.appVersion = device.appVersion
        fields.osVersion = device.osVersion
        fields.deviceModel = device.deviceModel
    }

    static func isTransient(_ error: any Error) -> Bool {
        switch error as? HeraldClientError {
        case .unavailable, .rateLimited: return true
        default: return false
        }
    }

    func pathComponent(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
