import Foundation

/// What one provider connection has established: its environment, its credential and (token auth) the
/// team and token it is bound to. Confined to the connection's loop thread, like the connection.
public final class ConnectionAuthState {
    public enum Credential: Sendable, Equatable {
        /// No client certificate: every request must carry `authorization: bearer <JWT>`.
        case providerToken
        /// A client certificate the simulator CA issued (or any APNs-style certificate).
        case certificate(CertificateScope)
        /// A client certificate that is not an APNs provider certificate.
        case unusableCertificate
    }

    public let environment: PushEnvironment
    public let credential: Credential

    /// Token auth: the team bound at the first valid token, the token now in use and since when.
    private(set) var teamID: String?
    private(set) var currentToken: String?
    private(set) var currentTokenSince: Date?
    /// The `authorization` header of the last request that authenticated, its verified claims and the
    /// authenticator's key generation then. A connection repeats one header for 20–60 minutes, so later
    /// requests skip parsing and the shared verdict cache; time-dependent rules still run every request.
    var lastAuthorization: String?
    var lastVerified: ProviderTokenAuthenticator.VerifiedToken?
    var lastVerifiedGeneration = 0
    /// Checks a connection's provider repeats on every request, done once while they repeat.
    var repeated = RepeatedRequestChecks()
    /// Streams this connection carried (for GOAWAY-after-N).
    var requestCount = 0
    /// A GOAWAY was decided (fault) / written (transport); each happens once per connection.
    var goAwayScheduled = false
    var sentGoAway = false
    /// The SETTINGS_MAX_CONCURRENT_STREAMS last sent.
    var advertisedStreamLimit: UInt32 = 1
    /// Whether the connection may have more than one stream: a token connection only once a valid token
    /// arrived (APNs), whatever limit a fault asks for.
    var mayOpenStreams: Bool {
        if case .providerToken = credential { return currentToken != nil }
        return true
    }

    /// Side effects the transport wrapper applies after each request.
    var pendingMaxConcurrentStreams: UInt32?
    var pendingGoAwayReason: String?
    /// Responders the fault injector chose never to answer; kept so the streams stay open.
    var unanswered: [Any] = []

    public init(environment: PushEnvironment, credential: Credential) {
        self.environment = environment
        self.credential = credential
    }

    /// Binds the connection to `token` (team and time) once it has been found valid. Returns a rejection
    /// for a second team or for a token change sooner than `minimumInterval` after the last one.
    func adopt(token: String, teamID: String, now: Date, minimumInterval: TimeInterval) -> Rejection? {
        if token == currentToken { return nil }
        if let bound = self.teamID, bound != teamID { return .invalidProviderToken }
        if let since = currentTokenSince, now.timeIntervalSince(since) < minimumInterval { return .tooManyProviderTokenUpdates }
        let first = currentToken == nil
        self.teamID = teamID
        currentToken = token
        currentTokenSince = now
        if first { pendingMaxConcurrentStreams = 0 }  // 0 = "raise to the configured limit"; resolved by the endpoint
        return nil
    }
}

/// What an APNs client certificate says: the app (UID), the topics it may push to, its environments.
public struct CertificateScope: Sendable, Equatable, Codable {
    public var bundleID: String
    /// Every topic the certificate covers, the bundle id included.
    public var topics: [String]
    public var environments: Set<PushEnvironment>

    public init(bundleID: String, topics: [String], environments: Set<PushEnvironment>) {
        self.bundleID = bundleID
        self.topics = topics.contains(bundleID) ? topics : [bundleID] + topics
        self.environments = environments
    }
}
