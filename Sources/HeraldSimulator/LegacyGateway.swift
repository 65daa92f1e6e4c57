import APNSCore
import Foundation
import HeraldCrypto

/// One connection to the legacy binary gateway (port 2195), as a state machine over bytes.
/// Notifications (commands 0, 1, 2) are delivered like HTTP/2 ones; an accepted notification gets no
/// reply. The first bad one gets an error-response packet (command 8) and the connection closes;
/// whatever followed it is discarded, as on Apple's gateway.
public final class LegacyGatewayConnection: LegacyConnection {
    let environment: PushEnvironment
    let credential: ConnectionAuthState.Credential
    private let state: SimulatorState
    private let endpoint: ProviderEndpoint
    private let tokenRule: DeviceTokenRule
    private let clock: @Sendable () -> Date
    private var decoder = LegacyNotificationDecoder()
    private(set) var closed = false

    init(environment: PushEnvironment, credential: ConnectionAuthState.Credential, state: SimulatorState,
         endpoint: ProviderEndpoint, tokenRule: DeviceTokenRule, clock: @escaping @Sendable () -> Date) {
        self.environment = environment
        self.credential = credential
        self.state = state
        self.endpoint = endpoint
        self.tokenRule = tokenRule
        self.clock = clock
    }

    public func opened() -> (reply: [UInt8], close: Bool) { ([], false) }

    public func receive(_ bytes: [UInt8]) -> (reply: [UInt8], close: Bool) {
        guard !closed else { return ([], true) }
        decoder.append(bytes)
        while true {
            let notification: LegacyNotification
            do {
                guard let next = try decoder.next() else { return ([], false) }
                notification = next
            } catch {
                return fail(error.errorResponse, reason: "legacy:\(error.status.rawValue)")
            }
            if let failure = accept(notification) { return fail(failure, reason: "legacy:\(failure.status.rawValue)") }
        }
    }

    private func fail(_ response: LegacyErrorResponse, reason: String) -> (reply: [UInt8], close: Bool) {
        closed = true
        state.recordRejected(Rejection(status: 0, reason: reason))
        return (response.encoded(), true)
    }

    /// Delivers one decoded notification, or says which error packet to send.
    private func accept(_ n: LegacyNotification) -> LegacyErrorResponse? {
        let id = n.identifier ?? 0
        guard case let .certificate(identity) = credential, identity.environments.contains(environment) else {
            // The gateway only ever took certificate connections for its own environment.
            return LegacyErrorResponse(status: .processingError, identifier: id)
        }
        if n.deviceToken.isEmpty { return LegacyErrorResponse(status: .missingDeviceToken, identifier: id) }
        if n.payload.isEmpty { return LegacyErrorResponse(status: .missingPayload, identifier: id) }
        if n.payload.count > LegacyNotification.payloadByteLimit { return LegacyErrorResponse(status: .invalidPayloadSize, identifier: id) }
        guard case .object? = try? JSONValue(parsing: n.payload) else {
            return LegacyErrorResponse(status: .processingError, identifier: id)
        }
        let hex = hexString(n.deviceToken)
        guard tokenRule.normalize(hex) != nil else { return LegacyErrorResponse(status: .invalidTokenSize, identifier: id) }
        guard let record = state.token(hex), record.environment == environment, record.bundleID == identity.bundleID else {
            return LegacyErrorResponse(status: .invalidToken, identifier: id)
        }
        let now = clock()
        // An uninstalled app's token is accepted silently: the binary API reported those through the
        // feedback service, never per notification.
        guard record.uninstalledAt == nil else { return nil }
        var headers: NotificationHeaders = ["legacy-command": String(n.format.rawValue)]
        if let identifier = n.identifier { headers["legacy-identifier"] = String(identifier) }
        let notification = SimulatedNotification(
            apnsID: endpoint.newAPNSID(), deviceToken: hex, bundleID: record.bundleID, topic: record.bundleID,
            pushType: "alert", priority: Int(n.effectivePriority),
            expiration: n.expiry.map { Date(timeIntervalSince1970: TimeInterval($0)) }, collapseID: nil,
            headers: headers, payload: n.payload, source: .legacy, receivedAt: now)
        state.accept(notification, now: now)
        return nil
    }
}

/// One connection to the legacy feedback service (port 2196): right after the handshake it sends a tuple
/// (timestamp, token length, token) for every token of the certificate's app that was uninstalled since
/// the last read, then closes. Tuples are forgotten once sent.
public final class LegacyFeedbackConnection: LegacyConnection {
    private let tuples: [UInt8]

    init(entries: [DeviceRegistry.FeedbackEntry]) {
        var bytes: [UInt8] = []
        for entry in entries {
            guard let token = Self.bytes(fromHex: entry.token),
                  let encoded = try? LegacyFeedbackTuple(timestamp: UInt32(clamping: Int64(entry.time.timeIntervalSince1970)),
                                                         deviceToken: token).encoded() else { continue }
            bytes += encoded
        }
        tuples = bytes
    }

    public func opened() -> (reply: [UInt8], close: Bool) { (tuples, true) }
    public func receive(_ bytes: [UInt8]) -> (reply: [UInt8], close: Bool) { ([], true) }

    static func bytes(fromHex hex: String) -> [UInt8]? {
        let u = Array(hex.utf8)
        guard u.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(u.count / 2)
        var i = 0
        while i < u.count {
            guard let v = UInt8(String(decoding: u[i...i + 1], as: UTF8.self), radix: 16) else { return nil }
            out.append(v)
            i += 2
        }
        return out
    }
}

extension Simulator {
    /// The protocol logic for a new legacy gateway connection.
    public func legacyGatewayConnection(environment: PushEnvironment, peerCertificate: Certificate?) -> LegacyGatewayConnection {
        LegacyGatewayConnection(environment: environment, credential: credential(of: peerCertificate), state: state,
                                endpoint: provider, tokenRule: configuration.tokens, clock: clock)
    }

    /// `legacyGatewayConnection` for a caller that already knows the certificate's identity (tests, tools).
    public func legacyGatewayConnection(environment: PushEnvironment, scope identity: CertificateScope) -> LegacyGatewayConnection {
        LegacyGatewayConnection(environment: environment, credential: .certificate(identity), state: state,
                                endpoint: provider, tokenRule: configuration.tokens, clock: clock)
    }

    /// The protocol logic for a new feedback connection: drains the feedback list of the certificate's app.
    public func legacyFeedbackConnection(environment: PushEnvironment, peerCertificate: Certificate?) -> LegacyFeedbackConnection {
        guard case let .certificate(identity) = credential(of: peerCertificate) else { return LegacyFeedbackConnection(entries: []) }
        return legacyFeedbackConnection(environment: environment, scope: identity)
    }

    public func legacyFeedbackConnection(environment: PushEnvironment, scope identity: CertificateScope) -> LegacyFeedbackConnection {
        LegacyFeedbackConnection(entries: state.drainFeedback(environment: environment, bundleID: identity.bundleID))
    }

    /// How a client certificate authenticates: an APNs certificate issued by the simulator CA.
    func credential(of certificate: Certificate?) -> ConnectionAuthState.Credential {
        guard let certificate else { return .providerToken }
        if let ca = try? certificateAuthority(), !certificate.isSigned(by: ca.certificate) { return .unusableCertificate }
        guard let info = try? APNsCertificateInfo(certificate) else { return .unusableCertificate }
        return .certificate(CertificateScope(info))
    }
}
