import Foundation
import Synchronization
import APNSClient
import APNSCore
import HeraldCrypto

/// `PushTransport` over Herald's HTTP/2 APNs client: one `APNSClient` (a connection pool) per app,
/// environment and credential version, rebuilt when the app uploads a new credential. Where each
/// environment lives is configurable, so the same transport sends to Apple or to the simulator.
public final class APNSClientTransport: PushTransport {
    /// Where one APNs environment is reached.
    public struct Endpoint: Sendable {
        public var environment: APNSEnvironment
        /// Trust only this CA (the simulator's `ca.pem`) instead of the system store.
        public var caFile: String?
        public var cleartext: Bool

        public init(_ environment: APNSEnvironment, caFile: String? = nil, cleartext: Bool = false) {
            self.environment = environment
            self.caFile = caFile
            self.cleartext = cleartext
        }
    }

    /// Connection-pool settings for every client this transport creates.
    public struct Options: Sendable {
        public var connections = 2
        public var maxInFlight = 2000
        public var requestTimeout: Duration = .seconds(30)
        /// The client's own quick retries (new connection, refreshed token); the engine's backoff follows.
        public var retry = RetryPolicy(maxAttempts: 3)
        public init() {}
    }

    private let endpoints: [String: Endpoint]
    private let options: Options
    private let clients = Mutex<[String: (version: Date, client: APNSClient)]>([:])

    /// `endpoints` maps "sandbox" and "production" to where they are reached (Apple by default).
    public init(endpoints: [String: Endpoint] = ["sandbox": Endpoint(.sandbox), "production": Endpoint(.production)],
                options: Options = Options()) {
        self.endpoints = endpoints
        self.options = options
    }

    /// Closes every connection.
    public func shutdown() {
        let all = clients.withLock { c -> [APNSClient] in
            defer { c.removeAll() }
            return c.values.map(\.client)
        }
        for client in all { client.shutdown() }
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
        var notifications: [APNSNotification] = []
        var ids: [Int64] = []
        var results: [DeliveryResult] = []
        notifications.reserveCapacity(batch.notifications.count)
        for n in batch.notifications {
            guard let token = try? DeviceToken(hex: n.deviceToken) else {
                results.append(DeliveryResult(id: n.id, status: 400, reason: "BadDeviceToken"))
                continue
            }
            ids.append(n.id)
            notifications.append(APNSNotification(
                deviceToken: token, topic: n.topic, encodedPayload: APNSEncodedPayload(uncheckedBytes: n.payload),
                pushType: APNSPushType(rawValue: n.pushType), priority: APNSPriority(rawValue: n.priority),
                expiration: n.expiration.map(APNSExpiration.at), collapseID: n.collapseID, apnsID: UUID(uuidString: n.apnsID)))
        }
        let collected = Mutex<[DeliveryResult]>([])
        let idList = ids
        await client.send(batch: notifications) { result in
            let id = idList[result.index]
            let mapped: DeliveryResult = switch result.result {
            case .success: .accepted(id)
            case .failure(.rejected(let error)): DeliveryResult(id: id, error: error)
            case .failure(.invalid(let error)): DeliveryResult(id: id, status: 400, reason: "Invalid: \(error)")
            case .failure(.credentials): DeliveryResult(id: id, status: 403, reason: "InvalidProviderToken")
            case .failure(let other): .notDelivered(id, because: "\(other)")
            }
            collected.withLock { $0.append(mapped) }
        }
        return results + collected.withLock { $0 }
    }

    private func client(for bundle: CredentialBundle) throws -> APNSClient {
        let key = "\(bundle.appID)|\(bundle.environment)"
        if let cached = clients.withLock({ $0[key] }), cached.version == bundle.version { return cached.client }
        guard let endpoint = endpoints[bundle.environment] else {
            throw HeraldConfiguration.Invalid(key: "apns.endpoints", message: "no APNs endpoint for environment \(bundle.environment)")
        }
        let credentials: APNSCredentials = switch bundle.credential {
        case .token(let keyID, let teamID, let pem):
            .token(APNSSigningKey(key: try PrivateKey(pem: pem), keyID: keyID, teamID: teamID))
        case .pkcs12(let data, let passphrase):
            .certificate(try PKCS12.load(data, passphrase: passphrase ?? ""))
        case .pem(let certificate, let privateKey, let passphrase):
            .certificate(try CertificateIdentity(keyPEM: privateKey, certificatesPEM: certificate, passphrase: passphrase))
        }
        let client = try APNSClient(configuration: .init(
            environment: endpoint.environment, credentials: credentials, caFile: endpoint.caFile, cleartext: endpoint.cleartext,
            connections: options.connections, maxInFlight: options.maxInFlight, requestTimeout: options.requestTimeout,
            retry: options.retry))
        let replaced = clients.withLock { c -> APNSClient? in
            let old = c[key]?.client
            c[key] = (bundle.version, client)
            return old
        }
        replaced?.shutdown()
        return client
    }
}
