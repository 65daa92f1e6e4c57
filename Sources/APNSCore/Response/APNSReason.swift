/// The `reason` string of an APNs error response, with what a provider should do about it.
///
/// Every reason in Apple's table is a case; anything else decodes as ``unknown(_:)`` so a
/// reason Apple adds later is kept, not lost. The classification properties:
///
/// | property | meaning |
/// | --- | --- |
/// | ``isRetryable`` | sending the same notification again later can succeed (after the action in ``retryAction``) |
/// | ``isPermanent`` | sending it again unchanged fails the same way; drop it or fix the cause |
/// | ``retiresToken`` | the device token is dead for this app and environment: stop sending to it |
/// | ``isCredentialFailure`` | the certificate, signing key or its configuration is at fault, not this notification |
///
/// For known reasons exactly one of `isRetryable` and `isPermanent` is true. An unknown reason is
/// neither: decide by HTTP status (see ``APNSError/isRetryable``).
public enum APNSReason: Sendable, Hashable {
    // 400
    case badCollapseID
    case badDeviceToken
    case badExpirationDate
    case badMessageID
    case badPriority
    case badTopic
    case deviceTokenNotForTopic
    case duplicateHeaders
    case idleTimeout
    case invalidPushType
    case missingDeviceToken
    case missingTopic
    case payloadEmpty
    case topicDisallowed
    // 403
    case badCertificate
    case badCertificateEnvironment
    case expiredProviderToken
    case forbidden
    case invalidProviderToken
    case missingProviderToken
    case unrelatedKeyIDInToken
    case badEnvironmentKeyIDInToken
    /// Decoded by APNSwift since 2025 but absent from Apple's table; treated like
    /// ``badEnvironmentKeyIDInToken``.
    case badEnvironmentKeyInToken
    // 404, 405
    case badPath
    case methodNotAllowed
    // 410
    case expiredToken
    case unregistered
    // 413
    case payloadTooLarge
    // 429
    case tooManyProviderTokenUpdates
    case tooManyRequests
    // 500, 503
    case internalServerError
    case serviceUnavailable
    case shutdown
    /// A reason this library does not know, kept verbatim.
    case unknown(String)

    /// Every known reason, in the order of Apple's table.
    public static let allKnown: [APNSReason] = [
        .badCollapseID, .badDeviceToken, .badExpirationDate, .badMessageID, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed, .badCertificate, .badCertificateEnvironment,
        .expiredProviderToken, .forbidden, .invalidProviderToken, .missingProviderToken,
        .unrelatedKeyIDInToken, .badEnvironmentKeyIDInToken, .badEnvironmentKeyInToken, .badPath,
        .methodNotAllowed, .expiredToken, .unregistered, .payloadTooLarge, .tooManyProviderTokenUpdates,
        .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
    ]

    /// The reason for a `reason` string; case-sensitive, as APNs sends it.
    public init(rawValue: String) {
        self = Self.byRawValue[rawValue] ?? .unknown(rawValue)
    }

    private static let byRawValue: [String: APNSReason] = {
        var table: [String: APNSReason] = [:]
        for reason in allKnown { table[reason.rawValue] = reason }
        return table
    }()

    /// The string APNs sends.
    public var rawValue: String {
        switch self {
        case .badCollapseID: return "BadCollapseId"
        case .badDeviceToken: return "BadDeviceToken"
        case .badExpirationDate: return "BadExpirationDate"
        case .badMessageID: return "BadMessageId"
        case .badPriority: return "BadPriority"
        case .badTopic: return "BadTopic"
        case .deviceTokenNotForTopic: return "DeviceTokenNotForTopic"
        case .duplicateHeaders: return "DuplicateHeaders"
        case .idleTimeout: return "IdleTimeout"
        case .invalidPushType: return "InvalidPushType"
        case .missingDeviceToken: return "MissingDeviceToken"
        case .missingTopic: return "MissingTopic"
        case .payloadEmpty: return "PayloadEmpty"
        case .topicDisallowed: return "TopicDisallowed"
        case .badCertificate: return "BadCertificate"
        case .badCertificateEnvironment: return "BadCertificateEnvironment"
        case .expiredProviderToken: return "ExpiredProviderToken"
        case .forbidden: return "Forbidden"
        case .invalidProviderToken: return "InvalidProviderToken"
        case .missingProviderToken: return "MissingProviderToken"
        case .unrelatedKeyIDInToken: return "UnrelatedKeyIdInToken"
        case .badEnvironmentKeyIDInToken: return "BadEnvironmentKeyIdInToken"
        case .badEnvironmentKeyInToken: return "BadEnvironmentKeyInToken"
        case .badPath: return "BadPath"
        case .methodNotAllowed: return "MethodNotAllowed"
        case .expiredToken: return "ExpiredToken"
        case .unregistered: return "Unregistered"
        case .payloadTooLarge: return "PayloadTooLarge"
        case .tooManyProviderTokenUpdates: return "TooManyProviderTokenUpdates"
        case .tooManyRequests: return "TooManyRequests"
        case .internalServerError: return "InternalServerError"
        case .serviceUnavailable: return "ServiceUnavailable"
        case .shutdown: return "Shutdown"
        case .unknown(let value): return value
        }
    }

    /// The HTTP status APNs answers with this reason; `nil` for unknown reasons.
    public var status: Int? {
        switch self {
        case .badCollapseID, .badDeviceToken, .badExpirationDate, .badMessageID, .badPriority, .badTopic,
            .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
            .missingTopic, .payloadEmpty, .topicDisallowed:
            return 400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
            .invalidProviderToken, .missingProviderToken, .unrelatedKeyIDInToken, .badEnvironmentKeyIDInToken,
            .badEnvironmentKeyInToken:
            return 403
        case .badPath: return 404
        case .methodNotAllowed: return 405
        case .expiredToken, .unregistered: return 410
        case .payloadTooLarge: return 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: return 429
        case .internalServerError: return 500
        case .serviceUnavailable, .shutdown: return 503
        case .unknown: return nil
        }
    }

    /// What to do before sending the same notification again, or `nil` when it must not be
    /// retried (``isPermanent``) or the reason is unknown.
    ///
    /// - `IdleTimeout`, `Shutdown`: the connection is going away; resend on a new one.
    /// - `ExpiredProviderToken`: sign a new JWT; APNs may wedge the connection, so use a new one.
    /// - `UnrelatedKeyIdInToken`: Apple's remedy is a new connection for the other key.
    /// - `TooManyRequests`, `TooManyProviderTokenUpdates`: wait, then resend.
    /// - `InternalServerError`, `ServiceUnavailable`: back off (Apple suggests minutes), then resend.
    public var retryAction: APNSRetryAction? {
        switch self {
        case .idleTimeout, .shutdown, .unrelatedKeyIDInToken: return .newConnection
        case .expiredProviderToken: return .newProviderToken
        case .tooManyRequests, .tooManyProviderTokenUpdates: return .afterDelay
        case .internalServerError, .serviceUnavailable: return .backOff
        default: return nil
        }
    }

    /// Sending the same notification again may succeed, after ``retryAction``.
    public var isRetryable: Bool { retryAction != nil }

    /// Sending the same notification again unchanged will fail the same way. Apple's "never
    /// retry" list (`BadDeviceToken`, `DeviceTokenNotForTopic`, `Forbidden`, `ExpiredToken`,
    /// `Unregistered`, `PayloadTooLarge`) plus every malformed-request reason (`Bad*`, `Missing*`,
    /// `InvalidPushType`, `DuplicateHeaders`, `PayloadEmpty`, `BadPath`, `MethodNotAllowed`) and the
    /// credential reasons no retry can fix (`BadCertificate*`, `InvalidProviderToken`,
    /// `MissingProviderToken`, `TopicDisallowed`, `BadEnvironmentKey*InToken`). False for unknown reasons.
    public var isPermanent: Bool {
        if case .unknown = self { return false }
        return retryAction == nil
    }

    /// APNs says the token is no longer valid for this topic and environment; stop sending to
    /// it until the app registers again (with a later timestamp for 410s).
    ///
    /// `Unregistered` and `ExpiredToken` (410) by definition. `BadDeviceToken` also means a
    /// sandbox token sent to production or the reverse, so it retires the token *for that
    /// environment*. `DeviceTokenNotForTopic`: the token belongs to another app.
    public var retiresToken: Bool {
        switch self {
        case .unregistered, .expiredToken, .badDeviceToken, .deviceTokenNotForTopic: return true
        default: return false
        }
    }

    /// The credential (certificate or signing key) or its setup is at fault, so every
    /// notification sent with it will fail the same way: flag the credential, do not blame the
    /// device. All 403 reasons (Apple: "certificate or provider-token error"), including
    /// `Forbidden` and the retryable `ExpiredProviderToken` (a persistent one means clock skew or
    /// a revoked key), plus `TopicDisallowed` (the credential may not send to this topic).
    public var isCredentialFailure: Bool {
        status == 403 || self == .topicDisallowed
    }
}

extension APNSReason: CustomStringConvertible {
    public var description: String { rawValue }
}

/// What a provider does before resending a notification that failed with a retryable reason.
public enum APNSRetryAction: Sendable, Hashable {
    /// Open a new connection and send there.
    case newConnection
    /// Generate a new provider token (JWT), on a new connection.
    case newProviderToken
    /// Wait a short while (rate limited), then send again.
    case afterDelay
    /// The service is failing; back off exponentially before sending again.
    case backOff
}
