import Dispatch
import Foundation
import HeraldCrypto
import HeraldHTTP

/// The provider API on an HTTP/2 server: give one to the server listening for `environment`.
/// Keeps a `ConnectionAuthState` in each connection's `context` and applies what `ProviderEndpoint`
/// decides (stream limits, GOAWAY, resets, delays) to the real connection.
public final class ProviderService: HTTP2ServerDelegate {
    public let environment: PushEnvironment
    let endpoint: ProviderEndpoint
    let mode: SimulatorConfiguration.Mode
    private let clock: @Sendable () -> Date
    private let credentialOf: @Sendable (Certificate?) -> ConnectionAuthState.Credential

    init(environment: PushEnvironment, endpoint: ProviderEndpoint, mode: SimulatorConfiguration.Mode,
         credentialOf: @escaping @Sendable (Certificate?) -> ConnectionAuthState.Credential, clock: @escaping @Sendable () -> Date) {
        self.environment = environment
        self.endpoint = endpoint
        self.mode = mode
        self.credentialOf = credentialOf
        self.clock = clock
    }

    public func connectionOpened(_ connection: HTTP2ServerConnection) {
        let auth = ConnectionAuthState(environment: environment, credential: credentialOf(connection.peerCertificateDER.flatMap { try? Certificate(der: $0) }))
        connection.context = auth
        // Token connections get one stream until a valid token arrives; certificate connections are
        // authenticated by the handshake.
        let limit: UInt32
        if mode == .acceptAll {
            limit = endpoint.resolvedStreamLimit(0)
        } else if case .certificate = auth.credential {
            limit = endpoint.resolvedStreamLimit(0)
        } else {
            limit = 1
        }
        auth.advertisedStreamLimit = limit
        connection.updateMaxConcurrentStreams(limit)
    }

    public func connectionClosed(_ connection: HTTP2ServerConnection) {
        (connection.context as? ConnectionAuthState)?.unanswered.removeAll()
        connection.context = nil
    }

    /// Accept-all connections skip request decoding altogether.
    public func fixedResponse(for connection: HTTP2ServerConnection) -> HTTP2FixedResponse? {
        mode == .acceptAll && endpoint.configuration.acceptAllUnregisteredRate == 0 ? endpoint.acceptAllResponse(environment: environment) : nil
    }

    public func handle(_ request: HTTPRequest, on connection: HTTP2ServerConnection, responder: HTTP2Responder) {
        if mode == .acceptAll {
            responder.respond(endpoint.acceptAll(request, environment: environment, now: clock()))
            return
        }
        guard let auth = connection.context as? ConnectionAuthState else {
            responder.respond(HTTPResponse(status: 500, json: #"{"reason":"InternalServerError"}"#))
            return
        }
        let action = endpoint.handle(request: request, connection: auth, now: clock())
        switch action {
        case let .respond(response):
            responder.respond(response)
        case let .respondAfter(ms, response):
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(ms)) { responder.respond(response) }
        case .neverAnswer:
            auth.unanswered.append(responder)
        case .resetConnection:
            connection.closeAbruptly()
            return
        }
        if let limit = auth.pendingMaxConcurrentStreams {
            auth.pendingMaxConcurrentStreams = nil
            let resolved = endpoint.resolvedStreamLimit(limit)
            if auth.mayOpenStreams, resolved != auth.advertisedStreamLimit {
                auth.advertisedStreamLimit = resolved
                connection.updateMaxConcurrentStreams(resolved)
            }
        }
        if let reason = auth.pendingGoAwayReason {
            auth.pendingGoAwayReason = nil
            if !auth.sentGoAway {
                auth.sentGoAway = true
                connection.goAway(errorCode: 0, debugData: Rejection(status: 0, reason: reason).body())
            }
        }
    }
}

extension CertificateScope {
    /// The identity an APNs certificate (as HeraldCrypto decodes it) grants.
    public init(_ info: APNsCertificateInfo) {
        var environments: Set<PushEnvironment> = []
        if info.environments.contains(.sandbox) { environments.insert(.sandbox) }
        if info.environments.contains(.production) { environments.insert(.production) }
        self.init(bundleID: info.bundleID, topics: info.topicNames, environments: environments)
    }
}
