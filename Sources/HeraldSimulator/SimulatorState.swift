import Foundation
import Synchronization

/// The simulator's shared state: registry, counters, rate buckets, device streams, faults. One lock;
/// every critical section is short and never does I/O, so loop threads can call in directly.
final class SimulatorState: Sendable {
    private struct Inner {
        var registry: DeviceRegistry
        var statistics = SimulatorStatistics()
        var seenIDs: Set<String> = []
        var buckets: [String: TokenBucket] = [:]
        var subscribers: [String: [UUID: AsyncStream<[UInt8]>.Continuation]] = [:]
        var faults: FaultInjector
        var random = SystemRandomNumberGenerator()
    }

    struct TokenBucket {
        var tokens: Double
        var updated: Date
    }

    private let inner: Mutex<Inner>
    /// Accept-all mode only touches this.
    let acceptAllCount = Atomic<Int>(0)
    let rateLimit: SimulatorConfiguration.RateLimit?
    /// Called (outside the lock) after devices, apps or tokens change, to persist them. It only schedules:
    /// the writer takes `snapshot` itself, once per coalesced write.
    private let onRegistryChange: @Sendable () -> Void
    /// Remembered apns-ids for duplicate counting are capped so a long validating run cannot grow forever.
    private let seenIDLimit = 2_000_000

    init(configuration: SimulatorConfiguration, onRegistryChange: @escaping @Sendable () -> Void = {}) {
        var registry = DeviceRegistry()
        registry.tokenRule = configuration.tokens
        registry.inboxLimit = configuration.inboxLimit
        registry.lowPriority = configuration.lowPriorityDelivery
        registry.defaultStorageTime = configuration.defaultStorageTime
        inner = Mutex(Inner(registry: registry, faults: FaultInjector(configuration.faults)))
        faultsConfigured.store(Self.configuresFaults(configuration.faults), ordering: .releasing)
        rateLimit = configuration.perDeviceRateLimit
        self.onRegistryChange = onRegistryChange
    }

    // MARK: reading

    func token(_ token: String) -> DeviceRegistry.TokenRecord? { inner.withLock { $0.registry.token(token) } }
    var devices: [Device] {
        inner.withLock { s in s.registry.devices.values.map { Self.trimmed($0, s.registry.inboxLimit) } }
            .sorted { $0.createdAt < $1.createdAt || ($0.createdAt == $1.createdAt && $0.id < $1.id) }
    }
    func device(_ id: String) -> Device? { inner.withLock { s in s.registry.devices[id].map { Self.trimmed($0, s.registry.inboxLimit) } } }

    /// The registry trims inboxes in batches; readers see exactly the newest `limit`.
    private static func trimmed(_ device: Device, _ limit: Int) -> Device {
        guard device.inbox.count > limit else { return device }
        var d = device
        d.inbox.removeFirst(d.inbox.count - limit)
        return d
    }
    var statistics: SimulatorStatistics {
        var s = inner.withLock { $0.statistics }
        s.accepted += acceptAllCount.load(ordering: .relaxed)
        return s
    }
    var snapshot: DeviceRegistry.Snapshot { inner.withLock { $0.registry.snapshot } }
    var faultConfiguration: FaultConfiguration { inner.withLock { $0.faults.configuration } }
    /// False while no fault of any kind is configured (the usual case), so requests skip the lock and
    /// the copy of the configuration that `faultConfiguration` costs.
    var hasFaults: Bool { faultsConfigured.load(ordering: .acquiring) }
    private let faultsConfigured = Atomic<Bool>(false)

    private static func configuresFaults(_ c: FaultConfiguration) -> Bool {
        !c.isQuiet || c.maxConcurrentStreamsOverride != nil
    }

    // MARK: provider path

    func recordRejected(_ rejection: Rejection) {
        inner.withLock { $0.statistics.rejected[rejection.reason, default: 0] += 1 }
    }

    func recordFault(_ kind: String) {
        inner.withLock { $0.statistics.faults[kind, default: 0] += 1 }
    }

    func decideFault() -> FaultDecision { inner.withLock { $0.faults.decide() } }

    func reconfigureFaults(_ configuration: FaultConfiguration) {
        inner.withLock { s in
            s.faults.reconfigure(configuration)
            faultsConfigured.store(Self.configuresFaults(configuration), ordering: .releasing)
        }
    }

    /// Token bucket per device token; false means 429 `TooManyRequests`.
    func allowRequest(to token: String, now: Date) -> Bool {
        guard let limit = rateLimit else { return true }
        return inner.withLock { s in
            var bucket = s.buckets[token] ?? TokenBucket(tokens: Double(limit.burst), updated: now)
            bucket.tokens = min(Double(limit.burst), bucket.tokens + now.timeIntervalSince(bucket.updated) * limit.requestsPerSecond)
            bucket.updated = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            s.buckets[token] = bucket
            return allowed
        }
    }

    /// Counts an accepted notification and hands it to its device.
    func accept(_ notification: SimulatedNotification, now: Date) {
        inner.withLock { s in
            s.statistics.accepted += 1
            // Only an apns-id the provider chose can repeat: generated ones are unique by construction.
            if notification.headers["apns-id"] != nil {
                if !s.seenIDs.insert(notification.apnsID).inserted {
                    s.statistics.duplicates[notification.apnsID, default: 1] += 1
                } else if s.seenIDs.count > seenIDLimit {
                    s.seenIDs.removeAll(keepingCapacity: true)
                }
            }
            let (outcome, delivered) = s.registry.deliver(notification, now: now)
            switch outcome {
            case .delivered: break
            case .held: s.statistics.held += 1
            case let .stored(replaced):
                s.statistics.stored += 1
                if replaced { s.statistics.replacedWhileStored += 1 }
            case .dropped: s.statistics.droppedExpired += 1
            }
            Self.publish(delivered, in: &s)
        }
    }

    private static func publish(_ delivered: [SimulatedNotification], in s: inout Inner) {
        s.statistics.delivered += delivered.count
        for n in delivered {
            guard let deviceID = s.registry.token(n.deviceToken)?.deviceID else { continue }
            publish(.notification(n), to: deviceID, in: &s)
        }
    }

    private static func publish(_ event: DeviceEvent, to deviceID: String, in s: inout Inner) {
        guard let subscribers = s.subscribers[deviceID], !subscribers.isEmpty else { return }
        let frame = event.serverSentEvent
        for continuation in subscribers.values { continuation.yield(frame) }
    }

    // MARK: devices

    private func mutateRegistry<T>(_ body: (inout Inner) throws -> T) rethrows -> T {
        let result = try inner.withLock { try body(&$0) }
        onRegistryChange()
        return result
    }

    func createDevice(name: String?, online: Bool, now: Date) -> Device {
        mutateRegistry { $0.registry.createDevice(name: name, online: online, now: now) }
    }

    func removeDevice(_ id: String) throws {
        try mutateRegistry { s in
            try s.registry.removeDevice(id)
            for c in (s.subscribers.removeValue(forKey: id) ?? [:]).values { c.finish() }
        }
    }

    func install(bundleID: String, environment: PushEnvironment, on deviceID: String, now: Date) throws -> AppInstallation {
        try mutateRegistry { s in
            try s.registry.install(bundleID: bundleID, environment: environment, on: deviceID, now: now, random: &s.random)
        }
    }

    func uninstall(bundleID: String, from deviceID: String, now: Date) throws -> AppInstallation {
        try mutateRegistry { try $0.registry.uninstall(bundleID: bundleID, from: deviceID, now: now) }
    }

    @discardableResult
    func setOnline(_ online: Bool, deviceID: String, now: Date) throws -> [SimulatedNotification] {
        try mutateRegistry { s in
            let wasOnline = s.registry.devices[deviceID]?.online
            let (delivered, expired) = try s.registry.setOnline(online, deviceID: deviceID, now: now)
            s.statistics.droppedExpired += expired
            if wasOnline != online { Self.publish(.presence(online: online), to: deviceID, in: &s) }
            Self.publish(delivered, in: &s)
            return delivered
        }
    }

    func recordOpen(deviceID: String, apnsID: String, now: Date) throws -> OpenReport {
        try inner.withLock { s in
            let report = try s.registry.recordOpen(deviceID: deviceID, apnsID: apnsID, now: now)
            s.statistics.opens += 1
            Self.publish(.opened(report), to: deviceID, in: &s)
            return report
        }
    }

    /// Delivers due low-priority bursts.
    func tick(now: Date) {
        inner.withLock { s in
            let delivered = s.registry.tick(now: now)
            Self.publish(delivered, in: &s)
        }
    }

    func drainFeedback(environment: PushEnvironment, bundleID: String?) -> [DeviceRegistry.FeedbackEntry] {
        mutateRegistry { $0.registry.drainFeedback(environment: environment, bundleID: bundleID) }
    }

    func restore(_ snapshot: DeviceRegistry.Snapshot) { inner.withLock { $0.registry.restore(snapshot) } }

    /// Clears counters and notifications (received, stored, held, opens); devices and tokens stay.
    func reset() {
        acceptAllCount.store(0, ordering: .relaxed)
        inner.withLock { s in
            s.statistics = SimulatorStatistics()
            s.seenIDs = []
            s.buckets = [:]
            s.registry.clearNotifications()
        }
    }

    // MARK: device streams

    /// A server-sent-event stream of `deviceID`'s events. `presence` ties the device's online state to
    /// the stream: online while it is open (delivering what was stored), offline when it ends.
    func subscribe(deviceID: String, presence: Bool, now: @escaping @Sendable () -> Date) throws -> AsyncStream<[UInt8]> {
        guard device(deviceID) != nil else { throw SimulatorError.unknownDevice(deviceID) }
        let id = UUID()
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        continuation.yield(Array(": connected to \(deviceID)\n\n".utf8))
        inner.withLock { $0.subscribers[deviceID, default: [:]][id] = continuation }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            let last = self.inner.withLock { s -> Bool in
                s.subscribers[deviceID]?[id] = nil
                return s.subscribers[deviceID]?.isEmpty ?? true
            }
            if presence, last { _ = try? self.setOnline(false, deviceID: deviceID, now: now()) }
        }
        if presence { try setOnline(true, deviceID: deviceID, now: now()) }
        return stream
    }

    func finishAllStreams() {
        let all = inner.withLock { s -> [AsyncStream<[UInt8]>.Continuation] in
            defer { s.subscribers = [:] }
            return s.subscribers.values.flatMap(\.values)
        }
        for c in all { c.finish() }
    }
}
