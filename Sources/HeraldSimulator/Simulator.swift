import Foundation
import HeraldCrypto
import HeraldHTTP
import Synchronization

/// A local APNs: the provider API (HTTP/2, both environments), the legacy binary gateway and feedback
/// service, simulated devices with store-and-forward, fault injection, and an inspection API.
///
/// Everything works without sockets (tests call `provider`, the device methods and `inspectionHandler`
/// directly); `start(transport:)` puts it on the network.
public final class Simulator: Sendable {
    public let configuration: SimulatorConfiguration
    /// The provider API core, shared by both environments' listeners.
    public let provider: ProviderEndpoint
    let state: SimulatorState
    let authenticator: ProviderTokenAuthenticator
    let store: SimulatorDataStore?
    let clock: @Sendable () -> Date
    private let ca = Mutex<CertificateAuthority?>(nil)
    private let openObservers = Mutex<[@Sendable (OpenReport) -> Void]>([])
    private let running = Mutex<RunningState?>(nil)

    /// - Parameters:
    ///   - configuration: validated here; a bad value throws `SimulatorError.invalidConfiguration`.
    ///   - clock: the time source for every expiry rule (JWT age, storage, bursts, rate limits).
    public init(configuration: SimulatorConfiguration = .init(), clock: @escaping @Sendable () -> Date = { Date() }) throws {
        var configuration = configuration
        configuration.faults = try configuration.faults.validated()
        try Self.check(configuration)
        self.configuration = configuration
        self.clock = clock
        let store = try configuration.dataDirectory.map(SimulatorDataStore.init(directory:))
        let authenticator = ProviderTokenAuthenticator()
        self.store = store
        self.authenticator = authenticator
        let state = SimulatorState(configuration: configuration) { store?.scheduleSave() }
        self.state = state
        store?.setSource { .init(registry: state.snapshot, keys: authenticator.keys.map(\.record)) }
        provider = ProviderEndpoint(state: state, authenticator: authenticator, configuration: configuration)
        if let saved = try store?.load() {
            state.restore(saved.registry)
            for record in saved.keys { authenticator.register(try SigningKey(record: record)) }
        }
        if let url = configuration.openedCallbackURL {
            addOpenObserver(OpenedForwarder(url: url, key: configuration.openedCallbackKey).forward)
        }
    }

    private static func check(_ c: SimulatorConfiguration) throws {
        if !(1...100).contains(c.tokens.issuedByteCount) {
            throw SimulatorError.invalidConfiguration(field: "tokens.issuedByteCount", message: "must be 1...100 bytes, got \(c.tokens.issuedByteCount)")
        }
        if !c.tokens.acceptedByteCounts.contains(c.tokens.issuedByteCount) {
            throw SimulatorError.invalidConfiguration(field: "tokens.acceptedByteCounts", message: "must include issuedByteCount (\(c.tokens.issuedByteCount)) or issued tokens would be refused")
        }
        if c.maxConcurrentStreams == 0 {
            throw SimulatorError.invalidConfiguration(field: "maxConcurrentStreams", message: "0 would stall every client; use 1 or more (APNs uses about 1000)")
        }
        if let r = c.perDeviceRateLimit, r.requestsPerSecond <= 0 || r.burst < 1 {
            throw SimulatorError.invalidConfiguration(field: "perDeviceRateLimit", message: "needs requestsPerSecond > 0 and burst >= 1")
        }
        if case let .burst(interval) = c.lowPriorityDelivery, interval <= 0 {
            throw SimulatorError.invalidConfiguration(field: "lowPriorityDelivery", message: "the burst interval must be positive")
        }
        if c.inboxLimit < 1 { throw SimulatorError.invalidConfiguration(field: "inboxLimit", message: "must be at least 1") }
    }

    // MARK: provider API

    /// The HTTP/2 server delegate for the listener of `environment`.
    public func providerService(for environment: PushEnvironment) -> ProviderService {
        ProviderService(environment: environment, endpoint: provider, mode: configuration.mode,
                        credentialOf: { [self] in credential(of: $0) }, clock: clock)
    }

    // MARK: devices

    public var devices: [Device] { state.devices }
    public func device(_ id: String) -> Device? { state.device(id) }

    public func createDevice(name: String? = nil, online: Bool = true) -> Device {
        state.createDevice(name: name, online: online, now: clock())
    }

    public func removeDevice(_ id: String) throws { try state.removeDevice(id) }

    /// Installs an app: returns the installation with its new device token (lowercase hex).
    @discardableResult
    public func install(bundleID: String, environment: PushEnvironment, on deviceID: String) throws -> AppInstallation {
        try state.install(bundleID: bundleID, environment: environment, on: deviceID, now: clock())
    }

    /// Uninstalls an app: its token answers 410 `Unregistered` (with this time) and appears on the feedback service.
    @discardableResult
    public func uninstall(bundleID: String, from deviceID: String) throws -> AppInstallation {
        try state.uninstall(bundleID: bundleID, from: deviceID, now: clock())
    }

    /// Takes a device on or offline; coming online delivers what was stored. Returns what was delivered.
    @discardableResult
    public func setOnline(_ online: Bool, deviceID: String) throws -> [SimulatedNotification] {
        try state.setOnline(online, deviceID: deviceID, now: clock())
    }

    /// Records that the user opened a received notification, and tells the open observers.
    @discardableResult
    public func reportOpened(deviceID: String, apnsID: String) throws -> OpenReport {
        let report = try state.recordOpen(deviceID: deviceID, apnsID: apnsID, now: clock())
        for observer in openObservers.withLock({ $0 }) { observer(report) }
        return report
    }

    /// Called for every open report (the configured callback URL is one such observer).
    public func addOpenObserver(_ observer: @escaping @Sendable (OpenReport) -> Void) {
        openObservers.withLock { $0.append(observer) }
    }

    /// Server-sent events for one device (see `DeviceEvent`); with `presence` the device is online while
    /// the stream is open.
    public func deviceStream(deviceID: String, presence: Bool = true) throws -> AsyncStream<[UInt8]> {
        try state.subscribe(deviceID: deviceID, presence: presence, now: clock)
    }

    /// Delivers low-priority bursts that are due. `start` calls it every 100 ms; tests call it directly.
    public func tick() { state.tick(now: clock()) }

    public var statistics: SimulatorStatistics { state.statistics }

    /// Clears counters and notifications; devices, apps, tokens and keys stay.
    public func reset() { state.reset() }

    // MARK: token auth keys

    /// Registers (or replaces) a provider signing key.
    public func registerSigningKey(_ key: SigningKey) throws {
        guard key.keyID.count == 10, key.teamID.count == 10 else {
            throw SimulatorError.invalidSigningKey(keyID: key.keyID, message: "key id and team id must be 10 characters (got \(key.keyID.count) and \(key.teamID.count))")
        }
        authenticator.register(key)
        persist()
    }

    public func removeSigningKey(keyID: String) throws {
        guard authenticator.remove(keyID: keyID) else { throw SimulatorError.unknownSigningKey(keyID) }
        persist()
    }

    public var signingKeys: [SigningKey] { authenticator.keys }

    /// Schedules a write of everything persistent (stored notifications included) to the data directory.
    func saveState() { persist() }

    private func persist() {
        store?.scheduleSave()
    }

    /// Waits until pending writes to the data directory are done.
    public func flush() { store?.flush() }

    // MARK: certificates

    /// The simulator CA: loaded from the data directory, or made (and saved there) on first use.
    public func certificateAuthority() throws -> CertificateAuthority {
        try ca.withLock { cached in
            if let cached { return cached }
            let made = try store?.certificateAuthority(now: clock())
                ?? CertificateAuthority.makeSelfSigned(commonName: "Herald APNs Simulator CA", now: clock())
            cached = made
            return made
        }
    }

    /// A client certificate for `bundleID` (UID = bundle id; topics: the app, `.voip`, `.complication`)
    /// valid for `environments`. Export it with `PKCS12.make` for tools that want a .p12.
    public func issueClientCertificate(bundleID: String, teamID: String = "SIMTEAM001",
                                       environments: Set<PushEnvironment>) throws -> CertificateIdentity {
        try DeviceRegistry.checkBundleID(bundleID)
        var envs: APNsCertificateInfo.Environments = []
        if environments.contains(.sandbox) { envs.insert(.sandbox) }
        if environments.contains(.production) { envs.insert(.production) }
        guard !envs.isEmpty else {
            throw SimulatorError.invalidRequest(field: "environments", message: "name sandbox, production or both")
        }
        return try certificateAuthority().issueAPNsClientCertificate(bundleID: bundleID, teamID: teamID, environments: envs, now: clock())
    }

    /// The provider API's TLS identity (issued by the simulator CA, so clients trust `ca.pem`).
    public func serverIdentity(dnsNames: [String] = ["localhost", "api.sandbox.push.apple.com", "api.push.apple.com"],
                               ipAddresses: [String] = ["127.0.0.1", "::1"]) throws -> CertificateIdentity {
        try certificateAuthority().issueServerCertificate(dnsNames: dnsNames, ipAddresses: ipAddresses, now: clock())
    }

    // MARK: faults

    public var faults: FaultConfiguration { state.faultConfiguration }

    /// Replaces the fault configuration at run time (the generator restarts from its seed).
    public func setFaults(_ faults: FaultConfiguration) throws {
        state.reconfigureFaults(try faults.validated())
    }

    // MARK: lifecycle state

    struct RunningState: Sendable {
        var transport: any SimulatorTransport
        var ports: SimulatorPorts
        var ticker: Task<Void, Never>
    }

    func setRunning(_ value: RunningState?) -> RunningState? {
        running.withLock { old in
            defer { old = value }
            return old
        }
    }

    var isRunning: Bool { running.withLock { $0 != nil } }
    var runningPorts: SimulatorPorts? { running.withLock { $0?.ports } }
}
