import Foundation
import Synchronization
import APNSClient
import APNSCore
import HeraldCrypto

/// Delivers through the HTTP/2 APNs client: one client (a connection pool) per app, environment and
/// credential version, shared by every push of that app. A replaced credential gets a new client; the
/// old one is closed.
///
/// Credentials minted by the built-in simulator (its key ids, or certificates from its CA) are sent to the
/// simulator; all others go to Apple. So a newcomer's default app works on one machine, and uploading real
/// credentials switches that app to Apple without a restart.
public final class APNSClientTransport: PushTransport {
    /// Where one kind of traffic goes.
    public struct Endpoints: Sendable {
        public var sandbox: APNSEnvironment
        public var production: APNSEnvironment
        /// Trust this CA instead of the system store.
        public var caFile: String?

        public init(sandbox: APNSEnvironment, production: APNSEnvironment, caFile: String? = nil) {
            self.sandbox = sandbox
            self.production = production
            self.caFile = caFile
        }

        public static let apple = Endpoints(sandbox: .sandbox, production: .production)
    }

    /// The built-in simulator and how to recognise its credentials.
    public struct SimulatorRoute: Sendable {
        public var endpoints: Endpoints
        public var isSimulatorCredential: @Sendable (AppCredential) -> Bool

        public init(endpoints: Endpoints, isSimulatorCredential: @escaping @Sendable (AppCredential) -> Bool) {
            self.endpoints = endpoints
            self.isSimulatorCredential = isSimulatorCredential
        }
    }

    /// The smallest window a client's is sized down to (`APNSClient.Configuration.minInFlight`): room for
    /// 100,000 notifications a second to a peer answering in 2.5 ms.
    public static let nearPeerInFlight = 256

    private let apple: Endpoints
    private let simulator: SimulatorRoute?
    private let connections: Int
    private let inFlightPerApp: Int
    private let observer: Mutex<APNSClientObserver?>
    private let clients = Mutex<[String: (version: Date, client: APNSClient)]>([:])

    /// `inFlightPerApp`: notifications on the wire at once per client (app and environment), at most, over its
    /// `connectionsPerApp` connections; more wait in the client for answers to make room. A peer that answers
    /// fast (the simulator, anything within a few milliseconds) gets fewer, down to `nearPeerInFlight`: they
    /// keep it as busy, and they are what a killed server sends again after its restart (`InFlightWindow`).
    public init(apple: Endpoints = .apple, simulator: SimulatorRoute? = nil, connectionsPerApp: Int = 2,
                inFlightPerApp: Int = HeraldConfiguration.defaultInFlight, observer: APNSClientObserver? = nil) {
        self.apple = apple
        self.simulator = simulator
        self.connections = connectionsPerApp
        self.inFlightPerApp = inFlightPerApp
        self.observer = Mutex(observer)
    }

    /// Sets the hooks that clients made from now on report to (the service's metrics, which exist only
    /// once the service does).
    public func attach(observer: APNSClientObserver) {
        self.observer.withLock { $0 = observer }
    }

    /// Where a credential's traffic goes, for logs and status.
    public func destination(of credential: AppCredential, environment: String) -> APNSEnvironment {
        endpoints(for: credential).environment(environment)
    }

    public func deliver(_ batch: OutgoingBatch) async -> [DeliveryResult] {
        let client: APNSClient
        do {
            client = try self.client(for: batch.credential)
        } catch {
            // An unusable credential fails every notification the way APNs would: the engine pauses the app.
            let reason = if case .token = batch.credential.credential { "InvalidProviderToken" } else { "BadCertificate" }
            return batch.notifications.map { DeliveryResult(id: $0.id, status: 403, reason: reason) }
        }
        // The valid requests, and for each its notification's position in the batch.
        var requests: [APNSPreparedRequest] = []
        var positions: [Int] = []
        requests.reserveCapacity(batch.notifications.count)
        positions.reserveCapacity(batch.notifications.count)
        // One result per notification, in the batch's order (the engine then matches them by position);
        // those caught before sending are known now, the others arrive from the event loops.
        var answered = [DeliveryResult?](repeating: nil, count: batch.notifications.count)
        // Notifications of one variant share their payload bytes and headers: the first is validated, the
        // others are the same request for another device. Notifications are read in place by position, and the
        // template is not bound to a local: either would copy a whole notification or request (a retain of each
        // of its strings and bytes) per notification. Only a notification that starts a new template is copied.
        // A retargeted request is appended from its binding: assigned to a second local first, it was copied
        // in and that local destroyed, another retain and release of each of its references.
        var template: (notification: OutgoingNotification, request: APNSPreparedRequest)?
        let notifications = batch.notifications
        for position in notifications.indices {
            do {
                let token = try DeviceToken(hex: notifications[position].deviceToken)
                if template?.notification.sharesRequest(with: notifications[position]) == true,
                   let retargeted = template?.request.retargeted(to: token, apnsID: notifications[position].apnsID) {
                    requests.append(retargeted)
                } else {
                    let n = notifications[position]
                    let notification = APNSNotification(
                        deviceToken: token, topic: n.topic, encodedPayload: APNSEncodedPayload(uncheckedBytes: n.payload),
                        pushType: APNSPushType(rawValue: n.pushType), priority: APNSPriority(rawValue: n.priority),
                        expiration: n.expiration.map(APNSExpiration.at), collapseID: n.collapseID, apnsID: n.apnsID)
                    let request = try notification.prepare()
                    template = (n, request)
                    requests.append(request)
                }
                positions.append(position)
            } catch {
                // Caught before sending: the same answer APNs would give, without the round trip.
                answered[position] = DeliveryResult(id: notifications[position].id, status: 400, reason: Self.reason(for: error))
            }
        }
        let ids = batch.notifications.map(\.id)
        let collected = Mutex(answered)
        let onAccepted = batch.onAccepted
        await client.send(prepared: requests) { [positions] r in
            let position = positions[r.index]
            let id = ids[position]
            let result: DeliveryResult
            switch r.result {
            case .success:
                result = .accepted(id)
                onAccepted?(position)
            case let .failure(.rejected(error)): result = DeliveryResult(id: id, error: error)
            case .failure(.credentials): result = DeliveryResult(id: id, status: 403, reason: "InvalidProviderToken")
            case let .failure(error): result = .notDelivered(id, because: error.description)
            }
            collected.withLock { $0[position] = result }
        }
        return collected.withLock { answered in
            answered.indices.map { answered[$0] ?? .notDelivered(ids[$0], because: "NoResult") }
        }
    }

    /// Closes every connection.
    public func shutdown() {
        let all = clients.withLock { c in
            defer { c.removeAll() }
            return c.values.map(\.client)
        }
        all.forEach { $0.shutdown() }
    }

    private func endpoints(for credential: AppCredential) -> Endpoints {
        if let simulator, simulator.isSimulatorCredential(credential) { return simulator.endpoints }
        return apple
    }

    private func client(for bundle: CredentialBundle) throws -> APNSClient {
        let key = "\(bundle.appID)|\(bundle.environment)"
        if let cached = clients.withLock({ $0[key] }), cached.version == bundle.version { return cached.client }
        let endpoints = endpoints(for: bundle.credential)
        var config = APNSClient.Configuration(environment: endpoints.environment(bundle.environment),
                                              credentials: try Self.credentials(bundle.credential))
        config.caFile = endpoints.caFile
        config.connections = connections
        config.maxInFlight = inFlightPerApp
        config.minInFlight = min(Self.nearPeerInFlight, inFlightPerApp)
        // The engine retries with its own backoff and records every attempt; one try here.
        config.retry = .none
        let attached = observer.withLock { $0 }
        let observer = (attached as? PerClientObserver)?.forClient(appID: bundle.appID, environment: bundle.environment) ?? attached
        let client = try APNSClient(configuration: config, observer: observer)
        // The slots of a round start their batches together and may all get here: the first client stored
        // wins, and the others are dropped unused. Replacing it would shut it down under its batch.
        let (chosen, replaced) = clients.withLock { c -> (APNSClient, APNSClient?) in
            if let cached = c[key], cached.version == bundle.version { return (cached.client, nil) }
            let old = c[key]?.client
            c[key] = (bundle.version, client)
            return (client, old)
        }
        if chosen !== client { client.shutdown() }
        replaced?.shutdown()
        return chosen
    }

    static func credentials(_ credential: AppCredential) throws -> APNSCredentials {
        switch credential {
        case let .token(keyID, teamID, pem):
            return .token(APNSSigningKey(key: try PrivateKey(pem: pem), keyID: keyID, teamID: teamID))
        case let .pkcs12(data, passphrase):
            return .certificate(try PKCS12.load(data, passphrase: passphrase ?? ""))
        case let .pem(certificate, privateKey, passphrase):
            return .certificate(try CertificateIdentity(keyPEM: privateKey, certificatesPEM: certificate, passphrase: passphrase))
        }
    }

    static func reason(for error: Error) -> String {
        if let v = error as? APNSValidationError, let reason = v.apnsReason { return reason.rawValue }
        if error is DeviceTokenError { return "BadDeviceToken" }
        return "BadRequest"
    }
}

extension APNSClientTransport.Endpoints {
    func environment(_ name: String) -> APNSEnvironment { name == "production" ? production : sandbox }
}
