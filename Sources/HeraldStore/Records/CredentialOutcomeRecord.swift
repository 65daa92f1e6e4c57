import Foundation

/// When APNs last accepted a notification sent with an app's credential for one environment, and when it
/// last rejected the credential itself (InvalidProviderToken, ExpiredProviderToken, BadCertificate, ...)
/// with that reason. Either may be nil (never seen).
public struct CredentialOutcomeRecord: Sendable, Equatable {
    public var appID: String
    /// "sandbox" or "production".
    public var environment: String
    public var acceptedAt: Date?
    public var rejectedAt: Date?
    public var rejectedReason: String?

    public init(appID: String, environment: String, acceptedAt: Date? = nil, rejectedAt: Date? = nil, rejectedReason: String? = nil) {
        self.appID = appID; self.environment = environment; self.acceptedAt = acceptedAt
        self.rejectedAt = rejectedAt; self.rejectedReason = rejectedReason
    }
}
