import Foundation
import APNSCore

/// APNs credential material, decrypted for the transport. Never logged, never returned by the API.
public enum AppCredential: Sendable, Equatable {
    /// Token-based auth (.p8): the transport signs ES256 JWTs with `privateKeyPEM`.
    case token(keyID: String, teamID: String, privateKeyPEM: String)
    /// A .p12 bundle with its passphrase.
    case pkcs12(data: [UInt8], passphrase: String?)
    /// A PEM certificate and private key.
    case pem(certificate: String, privateKey: String, passphrase: String?)
}

/// The credential of one app and environment, as the transport gets it. `version` changes whenever the
/// credential is replaced, so clients cached per (appID, environment) know to rebuild their connections.
public struct CredentialBundle: Sendable, Equatable {
    public var appID: String
    /// "sandbox" or "production".
    public var environment: String
    public var credential: AppCredential
    public var version: Date
}

/// One notification to one device. `payload` is shared storage: every notification of the same variant
/// (locale, badge) in a batch points at the same bytes.
public struct OutgoingNotification: Sendable {
    /// The delivery row id: results must carry it back.
    public var id: Int64
    public var deviceToken: String
    /// Stable per (push, installation): a retry reuses it, so APNs and logs can correlate.
    public var apnsID: UUID
    public var topic: String
    /// `apns-push-type` (alert, background, voip, ...).
    public var pushType: String
    /// `apns-priority`: 10, 5 or 1.
    public var priority: Int
    /// `apns-expiration`; nil leaves the header out (APNs' storage policy applies).
    public var expiration: Date?
    public var collapseID: String?
    public var payload: [UInt8]
}

extension OutgoingNotification {
    /// Whether `other` makes the same request apart from its device and apns-id.
    func sharesRequest(with other: OutgoingNotification) -> Bool {
        payload == other.payload && topic == other.topic && pushType == other.pushType && priority == other.priority
            && expiration == other.expiration && collapseID == other.collapseID
    }
}

/// A batch for one app and environment.
public struct OutgoingBatch: Sendable {
    public var appID: String
    public var pushID: String
    public var credential: CredentialBundle
    public var notifications: [OutgoingNotification]
    /// Called with a notification's position in `notifications` as soon as APNs accepts it, while the rest
    /// of the batch is still out (on the transport's I/O threads: it must be quick). The engine journals
    /// these, so a crash re-sends only what was in flight. A transport may leave it uncalled: the result it
    /// returns is what counts.
    public var onAccepted: (@Sendable (Int) -> Void)? = nil
}

/// What APNs (or the network) said about one notification.
public struct DeliveryResult: Sendable, Equatable {
    /// `OutgoingNotification.id`.
    public var id: Int64
    /// HTTP status from APNs; nil when no response arrived (connect failure, timeout, reset stream).
    public var status: Int?
    /// APNs `reason` (e.g. "BadDeviceToken"), or a transport description when `status` is nil.
    public var reason: String?
    /// APNs `timestamp` of a 410: when the token stopped being valid.
    public var unregisteredAt: Date?
    /// `Retry-After` from a 429/503, in seconds.
    public var retryAfter: Double?

    public init(id: Int64, status: Int?, reason: String? = nil, unregisteredAt: Date? = nil, retryAfter: Double? = nil) {
        self.id = id; self.status = status; self.reason = reason; self.unregisteredAt = unregisteredAt; self.retryAfter = retryAfter
    }

    /// APNs accepted the notification.
    public static func accepted(_ id: Int64) -> DeliveryResult { DeliveryResult(id: id, status: 200) }

    /// APNs rejected the notification.
    public init(id: Int64, error: APNSError, retryAfter: Double? = nil) {
        self.init(id: id, status: error.status, reason: error.reason?.rawValue, unregisteredAt: error.timestamp, retryAfter: retryAfter)
    }

    /// No answer came back (connection failure, timeout, reset stream); the engine retries with backoff.
    public static func notDelivered(_ id: Int64, because description: String) -> DeliveryResult {
        DeliveryResult(id: id, status: nil, reason: description)
    }
}

/// Delivers batches to APNs. The lead plugs the HTTP/2 APNs client (to Apple or the simulator) in here.
/// Implementations send a batch concurrently over their connection pool and return one result per
/// notification, best in the batch's order (the engine then matches them by position; in another order it
/// finds each by id). They must not throw: a failure to send is a result with `status == nil`.
public protocol PushTransport: Sendable {
    func deliver(_ batch: OutgoingBatch) async -> [DeliveryResult]
}
