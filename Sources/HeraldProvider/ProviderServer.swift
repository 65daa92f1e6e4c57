import Foundation
import HeraldCrypto
import HeraldHTTP
import HeraldIO
import HeraldPostgres
import HeraldServer
import HeraldSimulator

/// Everything `herald serve` runs in one process: the built-in APNs simulator (optional), the APNs
/// transport, the service and its HTTP server; plus the first-start bootstrap (a default app whose
/// credentials come from the simulator). Tests start the same thing on port 0.
public final class ProviderServer: Sendable {
    public struct Settings: Sendable {
        public var host = "127.0.0.1"
        public var port = 8080
        /// `http.tlsCertificate` / `http.tlsKey`: when set, the listener speaks HTTPS (HTTP/1.1 over TLS) only.
        public var tls: TLSCertificateReloader.Files?
        /// `http.tlsReloadInterval`: how often the certificate and key files are checked for a change (nil:
        /// only on `tls.reload(reason:)`, which `herald serve` calls on SIGHUP).
        public var tlsReloadInterval: Duration? = .seconds(10)
        /// Where the simulator keeps its state when it runs (`<data>/simulator`).
        public var dataDirectory = "herald-data"
        public var simulatorEnabled = true
        /// Sandbox provider port of the built-in simulator (0 picks one; production gets its own).
        public var simulatorPort = 0
        /// The simulator's inspection API, where `herald device` attaches (0 picks one; nil turns it off).
        public var simulatorInspectionPort: Int? = 8090
        /// Counting mode for the built-in simulator: every request is accepted and nothing is stored, so
        /// tokens it never issued (an imported registry, a benchmark) are acknowledged too.
        public var simulatorAcceptAll = false
        /// In counting mode, the share of tokens the simulator answers 410 Unregistered (benchmarks).
        public var simulatorUnregisteredRate: Double = 0
        /// Topic of the default app made on first start.
        public var defaultBundleID = "com.example.herald"
        /// Where credentials that are not the simulator's go: Apple, unless pointed elsewhere (a standalone
        /// `herald sim`, a test APNs, a TLS-inspecting gateway).
        public var apns = APNSClientTransport.Endpoints.apple
        public var service = HeraldConfiguration()

        public init() {}
    }

    /// What first start created: secrets shown once.
    public struct Bootstrap: Sendable {
        public var adminKey: String?
        public var appID: String?
        public var masterKey: String?
        public var clientKey: String?
    }

    public let service: HeraldService
    public let simulator: Simulator?
    public let simulatorPorts: SimulatorPorts?
    public let bootstrap: Bootstrap
    /// The listener's certificate files, watched for changes; nil without TLS.
    public let tls: TLSCertificateReloader?
    private let http: HTTPServer
    private let transport: APNSClientTransport

    public var port: Int { http.port }

    private init(service: HeraldService, simulator: Simulator?, simulatorPorts: SimulatorPorts?, bootstrap: Bootstrap,
                 tls: TLSCertificateReloader?, http: HTTPServer, transport: APNSClientTransport) {
        self.service = service
        self.tls = tls
        self.simulator = simulator
        self.simulatorPorts = simulatorPorts
        self.bootstrap = bootstrap
        self.http = http
        self.transport = transport
    }

    /// Starts everything, logs where it listens and, on first start, the keys (once). `log` also gets what
    /// the service reports while it runs: failed requests (5xx) with their cause, paused apps, failed rounds.
    public static func start(_ settings: Settings, log: @escaping LogHandler = { print("\($0.rawValue): \($1)") }) async throws -> ProviderServer {
        // Checked first: a certificate that cannot serve stops the start before anything else runs.
        let tls = try settings.tls.map { try TLSCertificateReloader(files: $0, log: log) }
        var simulator: Simulator?
        var ports: SimulatorPorts?
        var route: APNSClientTransport.SimulatorRoute?
        if settings.simulatorEnabled {
            var config = SimulatorConfiguration()
            config.host = "127.0.0.1"
            config.sandboxPort = settings.simulatorPort
            config.productionPort = 0
            config.inspectionPort = settings.simulatorInspectionPort
            if settings.simulatorAcceptAll { config.mode = .acceptAll }
            config.acceptAllUnregisteredRate = settings.simulatorUnregisteredRate
            let dir = URL(fileURLWithPath: settings.dataDirectory).appendingPathComponent("simulator")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            config.dataDirectory = dir
            let sim = try Simulator(configuration: config)
            let started = try await sim.start()
            let caFile = dir.appendingPathComponent("ca.pem").path
            let ca = try sim.certificateAuthority().certificate
            try ca.pem.write(toFile: caFile, atomically: true, encoding: .utf8)
            route = APNSClientTransport.SimulatorRoute(
                endpoints: .init(sandbox: .custom(host: "127.0.0.1", port: started.sandbox),
                                 production: .custom(host: "127.0.0.1", port: started.production), caFile: caFile),
                isSimulatorCredential: { Self.isMinted(by: sim, ca: ca, $0) })
            simulator = sim
            ports = started
        }
        let transport = APNSClientTransport(apple: settings.apns, simulator: route, inFlightPerApp: settings.service.inFlight)
        var configuration = settings.service
        configuration.deliveryTarget = ports.map {
            "credentials made by the built-in APNs simulator deliver to it (sandbox 127.0.0.1:\($0.sandbox), production 127.0.0.1:\($0.production)); other credentials to \(settings.apns.sandbox) / \(settings.apns.production)"
        } ?? "\(settings.apns.sandbox) / \(settings.apns.production)"
        let service = try await HeraldService(configuration: configuration, transport: transport,
                                              simulator: simulator.map { BuiltInSimulatorView(simulator: $0) }, log: log)
        transport.attach(observer: service.apnsMetricsObserver)
        let report = try await service.start()
        var bootstrap = Bootstrap(adminKey: report.generatedAdminKey)
        // A start that found its admin key already stored is not a first start.
        if report.generatedAdminKey != nil || settings.service.adminKey != nil, let simulator {
            bootstrap = try await makeDefaultApp(service: service, bundleID: settings.defaultBundleID,
                                                 simulator: simulator, generatedAdmin: report.generatedAdminKey)
        }
        // Connections past the descriptors left for the store, the APNs client and the simulator are refused
        // by the limit rather than by a failed accept.
        var limits = settings.service.httpLimits
        let descriptors = FileDescriptorLimit.current
        if limits.maxConnections > descriptors - 256 {
            limits.maxConnections = max(64, descriptors - 256)
            log(.warning, "http.maxConnections lowered to \(limits.maxConnections): the process may open \(descriptors) files (ulimit -n)")
        }
        let http = try HTTPServer(configuration: .init(host: settings.host, port: settings.port, maxBodyBytes: settings.service.maxBodyBytes,
                                                       limits: limits, tls: tls?.configuration),
                                  bodyPolicy: service.bodyPolicy, handler: service.handler)
        try await http.start()
        tls?.watch(every: settings.tlsReloadInterval) { [http] in try http.replaceTLS($0) }
        if settings.apns.sandbox != .sandbox || settings.apns.production != .production {
            log(.info, "APNs endpoints: sandbox \(settings.apns.sandbox), production \(settings.apns.production)" + (settings.apns.caFile.map { ", CA \($0)" } ?? ""))
        }
        let server = ProviderServer(service: service, simulator: simulator, simulatorPorts: ports, bootstrap: bootstrap,
                                    tls: tls, http: http, transport: transport)
        // A simulated device that opens a Herald push counts as an open, as the SDK's report would.
        simulator?.addOpenObserver { report in
            Task { try? await service.recordDeviceOpen(customPayload: report.customPayload, deviceToken: report.deviceToken) }
        }
        server.announce(settings, log: log)
        return server
    }

    /// Graceful: stop taking requests, let in-flight deliveries finish (or return to the queue), close.
    public func stop() async {
        tls?.stop()
        await http.stop()
        await service.shutdown()
        transport.shutdown()
        await simulator?.stop()
    }

    private func announce(_ settings: Settings, log: LogHandler) {
        log(.info, "herald serve listening on \(tls == nil ? "http" : "https")://\(settings.host):\(port) (OpenAPI at /openapi.json, metrics at /metrics)")
        if let tls {
            let cert = tls.identity.certificate
            log(.info, "TLS: certificate \(tls.files.certificate), key \(tls.files.key): serial \(cert.serialNumberHex) (\(cert.subject)), valid until \(cert.notAfter.formatted(.iso8601)); "
                + (settings.tlsReloadInterval.map { "files checked for changes every \($0) and " } ?? "") + "reloaded on SIGHUP")
        }
        log(.info, "store: " + (settings.service.storeURL.map { "PostgreSQL \(PostgresStore.redacted($0))" } ?? settings.service.databasePath))
        if let ports = simulatorPorts {
            log(.info, "APNs: credentials made by the built-in simulator (the default app's) deliver to it (sandbox 127.0.0.1:\(ports.sandbox), production 127.0.0.1:\(ports.production)); upload an Apple .p8 key or certificate to deliver through Apple")
            if ports.inspection != 0 { log(.info, "simulator inspection API: http://127.0.0.1:\(ports.inspection)  (herald device / herald sim use it)") }
        } else {
            log(.info, "APNs: built-in simulator off; apps need Apple credentials to deliver")
        }
        if let admin = bootstrap.adminKey { log(.info, "admin key (shown once, keep it): \(admin)") }
        if let app = bootstrap.appID, let master = bootstrap.masterKey, let client = bootstrap.clientKey {
            log(.info, "default app \(app) topic \(settings.defaultBundleID), credentials from the simulator")
            log(.info, "  master key (server side, shown once): \(master)")
            log(.info, "  client key (embed in the app, shown once): \(client)")
        }
    }

    /// First start only (no app yet): a default app with simulator credentials for both environments.
    private static func makeDefaultApp(service: HeraldService, bundleID: String, simulator: Simulator,
                                       generatedAdmin: String?) async throws -> Bootstrap {
        var bootstrap = Bootstrap(adminKey: generatedAdmin)
        let first = try await service.createFirstApp(topic: bundleID) {
            let key = try simulator.generateSigningKey(teamID: "SIMTEAM001", bundleIDs: [bundleID])
            return (key.keyID, key.teamID, key.privateKeyPEM)
        }
        guard let app = first else { return bootstrap }
        bootstrap.appID = app.appID
        bootstrap.masterKey = app.masterKey
        bootstrap.clientKey = app.clientKey
        return bootstrap
    }

    /// Whether the built-in simulator made this credential (its key ids, certificates from its CA).
    static func isMinted(by simulator: Simulator, ca: Certificate, _ credential: AppCredential) -> Bool {
        switch credential {
        case let .token(keyID, _, _):
            return simulator.signingKeys.contains { $0.keyID == keyID }
        case let .pkcs12(data, passphrase):
            return (try? PKCS12.load(data, passphrase: passphrase ?? ""))?.certificate.isSigned(by: ca) ?? false
        case let .pem(certificate, _, _):
            return (try? Certificate(pem: certificate))?.isSigned(by: ca) ?? false
        }
    }
}
