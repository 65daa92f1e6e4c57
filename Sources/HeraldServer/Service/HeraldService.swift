import Foundation
import Synchronization
import HeraldCrypto
import HeraldHTTP
import HeraldStore

/// The provider service: its operations (`services`), the REST API over them (`handler`), store and delivery
/// engine. Build it, `start()` it, serve `handler` over HTTP, and `shutdown()` it:
///
///     let service = try await HeraldService(configuration: config, transport: apnsTransport)
///     let report = try await service.start()          // report.generatedAdminKey: print once
///     let server = HTTPServer(..., bodyPolicy: service.bodyPolicy, handler: service.handler)
///     ...
///     await service.shutdown()
public final class HeraldService: Sendable {
    public let configuration: HeraldConfiguration
    public let store: any HeraldStorage
    public let metrics: Metrics
    /// Exposed so tools and tests can drive delivery by hand (`runUntilIdle`) when `runWorkers` is false.
    public let engine: DeliveryEngine
    /// Sends the events outbox to webhooks; `runUntilIdle` drives it by hand when `runWorkers` is false.
    public let webhookWorker: WebhookWorker
    let env: ServiceEnvironment
    /// The operations; every interface (REST, LeanCloud, bootstrap, simulator opens) goes through them.
    let services: Services
    private let api: APIHandler
    private let started = ReadyFlag()

    /// What `start()` found or did.
    public struct StartReport: Sendable {
        /// A new admin key, generated because none existed and `admin.key` was not set. Shown once.
        public var generatedAdminKey: String?
        public var schemaVersion: Int
        /// Deliveries that were in flight when the previous process stopped, now back in the queue.
        public var requeuedDeliveries: Int
    }

    /// Opens the store (creating and migrating it) and wires the API. Nothing runs until `start()`.
    public init(configuration: HeraldConfiguration, transport: any PushTransport, clock: any HeraldClock = SystemClock(),
                crypto: (any ServerCrypto)? = nil, simulator: (any SimulatorView)? = nil, log: @escaping LogHandler = { _, _ in }) async throws {
        self.configuration = configuration
        let store = try await Self.openStore(configuration, now: clock.now(), log: log)
        let crypto = try crypto ?? SecretBoxCrypto(secretKey: try Self.secretKey(configuration))
        let metrics = Metrics()
        let authenticator = KeyAuthenticator(store: store, crypto: crypto, clock: clock)
        let env = ServiceEnvironment(store: store, crypto: crypto, clock: clock, configuration: configuration, metrics: metrics,
                                     authenticator: authenticator, logHandler: log)
        let engine = DeliveryEngine(env: env, transport: transport)
        let webhookWorker = WebhookWorker(env: env)
        self.webhookWorker = webhookWorker
        self.store = store
        self.metrics = metrics
        self.env = env
        self.engine = engine
        let services = Services(env: env, engine: engine, webhookWorker: webhookWorker)
        self.services = services
        let startedFlag = started
        let routes = AppsAPI(apps: services.apps, credentials: services.credentials, webhooks: services.webhooks).routes
            + InstallationsAPI(installations: services.installations, opens: services.opens).routes
            + TransferAPI(env: env, installations: services.installations).routes + PushesAPI(pushes: services.pushes).routes
            + LeanCloudAPI(installations: services.installations, pushes: services.pushes, identities: services.compatIdentities, keys: authenticator).routes + LeanCloudKeysAPI(identities: services.compatIdentities).routes
            + JPushAPI(services: services, authenticator: authenticator).routes
            + OperationsAPI(env: env, isReady: { startedFlag.isSet }).routes
            + WebhooksAPI(webhooks: services.webhooks).routes

        let sessions = ConsoleSessions(store: store, crypto: crypto, authenticator: authenticator)
        let consoleRoutes = ConsoleAPI(sessions: sessions).routes + SimulatorAPI(simulator: simulator, apps: services.apps).routes
            + StatisticsAPI(statistics: StatisticsService(env: env)).routes + InstallationHistoryAPI(history: InstallationHistoryService(env: env)).routes
        api = APIHandler(router: Router(routes: routes + consoleRoutes), authenticator: authenticator,
                         limiter: RateLimiter(rate: configuration.apiRateLimit, burst: configuration.apiRateBurst),
                         metrics: metrics, clock: clock, maxBodyBytes: configuration.maxBodyBytes,
                         defaultDialect: APIDialect(authentications: [ConsoleSessionAuthentication(sessions: sessions)]), log: log)
    }

    /// The REST API as an HTTP handler: serve it with any HTTP server, or call it in-process.
    public var handler: HTTPHandler {
        let api = self.api
        return { request in await api.handle(request) }
    }

    /// The REST API's body policy for an HTTP/1.1 server (`HTTPServer(bodyPolicy:)`): the checks that need
    /// only a request's head run before its body is read.
    public var bodyPolicy: HTTPBodyPolicyProvider {
        let api = self.api
        return { head in api.bodyPolicy(head) }
    }

    /// Every route, for documentation and the OpenAPI check.
    public var routes: [Route] { api.router.routes }

    /// Ensures an admin key exists, returns interrupted deliveries to the queue, starts the workers.
    @discardableResult
    public func start() async throws -> StartReport {
        let now = env.clock.now()
        var generated: String?
        if let adminKey = configuration.adminKey {
            try await env.authenticator.adopt(secret: adminKey, scope: .admin, now: now)
        } else if try await store.keys(appID: nil).allSatisfy({ $0.revokedAt != nil }) {
            let issued = env.authenticator.issue(scope: .admin, appID: nil, now: now)
            try await store.insertKey(issued.record)
            generated = issued.secret
        }
        // One node per SQLite file: whatever is in flight was this process's predecessor's. On a shared
        // database other nodes may be sending: only the claims of processes that never registered (gone
        // before their first renewal, tools) are freed now; a registered node's once its lease expires.
        let requeued = store.isShared ? try await store.rescueExpiredNodes(now: .distantPast).deliveries : try await store.releaseInFlight()
        if configuration.runWorkers {
            // Registered before the first claim, so no rescue mistakes this node's claims for a dead one's.
            await engine.joinCluster()
            engine.startLoop()
            webhookWorker.startLoop()
            env.credentialOutcomes.startFlushing(to: store, log: env.logHandler)
        }
        started.isSet = true
        return StartReport(generatedAdminKey: generated, schemaVersion: try await store.schemaVersion(), requeuedDeliveries: requeued)
    }

    /// Stops the workers; batches in flight finish (up to `delivery.shutdownGrace`), the rest go back to the queue.
    public func shutdown() async {
        started.isSet = false
        await engine.stop()
        await webhookWorker.stop()
        await env.credentialOutcomes.stop(flushingTo: store)
    }

    /// The 32-byte credential-sealing key: from configuration, or a key file created on first start.
    static func secretKey(_ configuration: HeraldConfiguration) throws -> [UInt8] {
        if let key = configuration.secretKey { return key }
        let path = configuration.effectiveSecretKeyFile
        if let data = FileManager.default.contents(atPath: path) {
            guard let text = String(data: data, encoding: .utf8), let key = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), key.count == 32 else {
                throw HeraldConfiguration.Invalid(key: "secrets.keyFile", message: "\(path) must hold base64 of 32 bytes")
            }
            return Array(key)
        }
        var key = [UInt8](repeating: 0, count: 32)
        var rng = SystemRandomNumberGenerator()
        for i in key.indices { key[i] = rng.next() }
        do {
            // With PostgreSQL nothing else creates the data directory the key file defaults to.
            try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            try writeSecretFile(Array((Data(key).base64EncodedString() + "\n").utf8), to: path)
        } catch {
            throw HeraldConfiguration.Invalid(key: "secrets.keyFile", message: "cannot create \(path) (\(error)); check the directory permissions")
        }
        return key
    }
}

/// A flag shared with the readiness route.
final class ReadyFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool {
        get { value.load(ordering: .relaxed) }
        set { value.store(newValue, ordering: .relaxed) }
    }
}
