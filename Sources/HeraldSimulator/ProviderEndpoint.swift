import APNSCore
import Foundation
import HeraldHTTP

/// The HTTP/2 provider API (`POST /3/device/<token>`) without sockets: validation in a fixed, documented
/// order (docs/simulator.md), authentication, delivery. Synchronous and I/O-free, so the transport calls it
/// on its loop thread and tests call it directly.
public final class ProviderEndpoint: Sendable {
    let state: SimulatorState
    let authenticator: ProviderTokenAuthenticator
    let configuration: SimulatorConfiguration
    private let ids = APNSIDGenerator()

    init(state: SimulatorState, authenticator: ProviderTokenAuthenticator, configuration: SimulatorConfiguration) {
        self.state = state
        self.authenticator = authenticator
        self.configuration = configuration
    }

    /// Validates and answers one request. Side effects on the connection (raise the stream limit, send
    /// GOAWAY) are left in `connection` for the transport to apply.
    public func process(request: HTTPRequest, connection: ConnectionAuthState, now: Date) -> HTTPResponse {
        switch validate(request, connection: connection, now: now) {
        case let .success(notification):
            guard state.allowRequest(to: notification.deviceToken, now: now) else {
                return reject(.tooManyRequests, apnsID: notification.apnsID)
            }
            state.accept(notification, now: now)
            return success(apnsID: notification.apnsID, environment: connection.environment)
        case let .failure(failure):
            let apnsID = failure.rejection == .badMessageId ? ids.next() : (request.headers["apns-id"] ?? ids.next())
            return reject(failure.rejection, apnsID: apnsID, timestamp: failure.timestamp)
        }
    }

    /// Counting mode: 200 for anything, with the request's `apns-id` or a cheap generated one (and, on
    /// sandbox, an `apns-unique-id`, as every success there carries). One atomic increment; nothing is
    /// parsed, checked or stored.
    public func acceptAll(_ request: HTTPRequest, environment: PushEnvironment, now: Date = Date()) -> HTTPResponse {
        state.acceptAllCount.add(1, ordering: .relaxed)
        let apnsID = request.headers["apns-id"] ?? ids.next()
        if configuration.acceptAllUnregisteredRate > 0, Self.isPicked(token: request.path.split(separator: "/").last ?? "",
                                                                      rate: configuration.acceptAllUnregisteredRate) {
            return reject(.unregistered, apnsID: apnsID, timestamp: now)
        }
        return success(apnsID: apnsID, environment: environment)
    }

    /// Whether `token` is among the `rate` share picked by a stable hash (FNV-1a) of its text.
    static func isPicked(token: Substring, rate: Double) -> Bool {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in token.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Double(hash % 10_000) < rate * 10_000
    }

    /// `acceptAll` as the HTTP/2 transport's fast path: the same answer and count, with no request decoded.
    public func acceptAllResponse(environment: PushEnvironment) -> HTTP2FixedResponse {
        let ids = ids
        let next: @Sendable () -> String = { ids.next() }
        let uniqueID = environment == .sandbox && configuration.sandboxUniqueID ? [(name: "apns-unique-id", makeValue: next)] : []
        return HTTP2FixedResponse(status: 200, echoedHeader: "apns-id", makeEchoedValue: next,
                                  generatedHeaders: uniqueID, onRequest: { [state] in state.acceptAllCount.add(1, ordering: .relaxed) })
    }

    /// What the transport should do with a request once faults are taken into account.
    public enum Action {
        case respond(HTTPResponse)
        case respondAfter(milliseconds: Int, HTTPResponse)
        case neverAnswer
        case resetConnection
    }

    /// `process` behind the fault injector, plus GOAWAY-after-N and the stream-limit override.
    public func handle(request: HTTPRequest, connection: ConnectionAuthState, now: Date) -> Action {
        connection.requestCount += 1
        guard state.hasFaults else { return .respond(process(request: request, connection: connection, now: now)) }
        let faults = state.faultConfiguration
        if let limit = faults.maxConcurrentStreamsOverride { connection.pendingMaxConcurrentStreams = limit }
        if let n = faults.goAwayAfterStreams, connection.requestCount >= n, !connection.goAwayScheduled {
            connection.goAwayScheduled = true
            connection.pendingGoAwayReason = faults.goAwayReason
            state.recordFault("goAway")
        }
        let decision = faults.isQuiet ? .none : state.decideFault()
        switch decision {
        case .none:
            return .respond(process(request: request, connection: connection, now: now))
        case let .reject(rejection):
            state.recordFault(rejection.reason)
            return .respond(reject(rejection, apnsID: request.headers["apns-id"] ?? ids.next()))
        case .resetConnection:
            state.recordFault("reset")
            return .resetConnection
        case .neverAnswer:
            state.recordFault("neverAnswer")
            return .neverAnswer
        case let .delay(ms):
            state.recordFault("delay")
            return .respondAfter(milliseconds: ms, process(request: request, connection: connection, now: now))
        }
    }

    func newAPNSID() -> String { ids.next() }

    /// Spaces and tabs off both ends, without Foundation's CharacterSet machinery (hot path).
    static func trimmingSpaces(_ text: Substring) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else { return "" }
        return String(text[first...last])
    }

    /// The stream limit to advertise when `connection` asked for "the configured value" (0).
    func resolvedStreamLimit(_ requested: UInt32) -> UInt32 {
        requested == 0 ? (state.faultConfiguration.maxConcurrentStreamsOverride ?? configuration.maxConcurrentStreams) : requested
    }

    // MARK: responses

    private func success(apnsID: String, environment: PushEnvironment) -> HTTPResponse {
        guard environment == .sandbox, configuration.sandboxUniqueID else {
            return HTTPResponse(status: 200, headers: HTTPHeaders([("apns-id", apnsID)]))
        }
        return HTTPResponse(status: 200, headers: HTTPHeaders([("apns-id", apnsID), ("apns-unique-id", ids.next())]))
    }

    private func reject(_ rejection: Rejection, apnsID: String, timestamp: Date? = nil) -> HTTPResponse {
        state.recordRejected(rejection)
        let body = rejection.body(timestampMilliseconds: timestamp.map(InspectionJSON.millis))
        return HTTPResponse(status: rejection.status, headers: ["apns-id": apnsID, "content-type": "application/json"], body: body)
    }

    // MARK: validation

    struct Failure: Error {
        var rejection: Rejection
        var timestamp: Date? = nil
        init(_ rejection: Rejection, timestamp: Date? = nil) {
            self.rejection = rejection
            self.timestamp = timestamp
        }
    }

    private static let devicePrefix = Array("/3/device/".utf8)

    /// A `/` in what should be the token: `BadPath`, as APNs answers for extra path segments.
    private static func containsSlash(_ text: Substring) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { memchr($0.baseAddress!, 0x2F, $0.count) != nil }
            ?? text.utf8.contains(0x2F)
    }
    func validate(_ request: HTTPRequest, connection: ConnectionAuthState, now: Date) -> Result<SimulatedNotification, Failure> {
        let h = ProviderHeaders(request.headers)
        // 1. method
        guard request.method == "POST" else { return .failure(Failure(.methodNotAllowed)) }
        // 2. path
        // Bytes, not Characters, from here on: this runs for every request.
        let path = request.path
        guard path.utf8.starts(with: Self.devicePrefix) else { return .failure(Failure(.badPath)) }
        let tokenText = Substring(path.utf8.dropFirst(Self.devicePrefix.count))
        if tokenText.isEmpty { return .failure(Failure(.missingDeviceToken)) }
        if Self.containsSlash(tokenText) { return .failure(Failure(.badPath)) }
        // 3. duplicate headers
        if h.hasDuplicate { return .failure(Failure(.duplicateHeaders)) }
        // 4. apns-id
        let apnsID: String
        if let given = h.apnsID {
            guard APNSIDGenerator.isCanonicalUUID(given) else { return .failure(Failure(.badMessageId)) }
            apnsID = given
        } else {
            apnsID = ids.next()
        }
        // 5. authentication, 6. topic
        let topic: String
        switch authenticate(h, connection: connection, now: now) {
        case let .failure(f): return .failure(f)
        case let .success(t): topic = t
        }
        // 7. header values
        var expiration: Date?
        if let text = h.expiration {
            guard let seconds = UInt64(text), seconds <= 0xFFFF_FFFF_FFFF else { return .failure(Failure(.badExpirationDate)) }
            expiration = Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        var priority = 10
        if let text = h.priority {
            guard let p = Int(text), p == 10 || p == 5 || p == 1 else { return .failure(Failure(.badPriority)) }
            priority = p
        }
        let (topicRule, bundleID) = connection.repeated.split(topic: topic)
        let rule: PushTypeRule
        if let name = h.pushType {
            guard let named = PushTypeRule.byName[name] else { return .failure(Failure(.invalidPushType)) }
            // The topic's suffix must be the one the push type requires (mdm topics are free-form).
            if let suffix = named.topicSuffix, suffix != (topicRule.topicSuffix ?? "") { return .failure(Failure(.invalidPushType)) }
            rule = named
        } else {
            rule = topicRule
        }
        if case .certificate = connection.credential, !rule.allowedWithCertificate { return .failure(Failure(.invalidPushType)) }
        if let allowed = rule.priorities, !allowed.contains(priority) { return .failure(Failure(.badPriority)) }
        let collapseID = h.collapseID
        if let collapseID, collapseID.utf8.count > 64 { return .failure(Failure(.badCollapseId)) }
        // 8. device token
        guard let token = configuration.tokens.normalize(tokenText), let record = state.token(token),
              record.environment == connection.environment
        else { return .failure(Failure(.badDeviceToken)) }
        let appBundleID = rule.topicSuffix == nil ? record.bundleID : bundleID
        guard record.bundleID == appBundleID else { return .failure(Failure(.deviceTokenNotForTopic)) }
        if let uninstalled = record.uninstalledAt { return .failure(Failure(.unregistered, timestamp: uninstalled)) }
        // 9. body
        let body = request.body
        if body.isEmpty { return .failure(Failure(.payloadEmpty)) }
        if body.count > rule.maxPayload { return .failure(Failure(.payloadTooLarge)) }
        guard let checked = connection.repeated.checkedPayload(body) else { return .failure(Failure(.badPayload)) }

        return .success(SimulatedNotification(
            apnsID: apnsID, deviceToken: token, bundleID: record.bundleID, topic: topic, pushType: rule.name,
            priority: priority, expiration: expiration, collapseID: collapseID, headers: h.recorded, payload: body,
            source: .http2, receivedAt: now, badge: checked.badge))
    }

    /// Steps 5 and 6: who is sending, and to which topic. Returns the topic.
    private func authenticate(_ h: ProviderHeaders, connection: ConnectionAuthState, now: Date) -> Result<String, Failure> {
        let topicHeader = h.topic.flatMap { $0.isEmpty ? nil : $0 }
        switch connection.credential {
        case .unusableCertificate:
            return .failure(Failure(.badCertificate))
        case let .certificate(identity):
            guard identity.environments.contains(connection.environment) else {
                connection.pendingGoAwayReason = Rejection.badCertificateEnvironment.reason
                return .failure(Failure(.badCertificateEnvironment))
            }
            guard let topic = topicHeader ?? (identity.topics.count == 1 ? identity.bundleID : nil) else {
                return .failure(Failure(.missingTopic))
            }
            guard identity.topics.contains(topic) else { return .failure(Failure(.badTopic)) }
            return .success(topic)
        case .providerToken:
            let verified: ProviderTokenAuthenticator.VerifiedToken
            switch verifyProviderToken(h.authorization, connection: connection, now: now) {
            case let .failure(f): return .failure(f)
            case let .success(v): verified = v
            }
            guard let topic = topicHeader else { return .failure(Failure(.missingTopic)) }
            if let allowed = verified.key.bundleIDs, !allowed.contains(connection.repeated.split(topic: topic).bundleID) {
                return .failure(Failure(.topicDisallowed))
            }
            return .success(topic)
        }
    }

    /// Step 5 for token auth: the `authorization` header's provider token, verified and adopted by the
    /// connection. The header the connection last authenticated with skips parsing and verification
    /// (until keys change); its age is still checked on every request.
    private func verifyProviderToken(_ authorization: String?, connection: ConnectionAuthState,
                                     now: Date) -> Result<ProviderTokenAuthenticator.VerifiedToken, Failure> {
        guard let authorization else { return .failure(Failure(.missingProviderToken)) }
        let generation = authenticator.generation
        if authorization == connection.lastAuthorization, generation == connection.lastVerifiedGeneration,
           let cached = connection.lastVerified {
            if now.timeIntervalSince(cached.issuedAt) > configuration.providerTokenLifetime { return .failure(Failure(.expiredProviderToken)) }
            return .success(cached)
        }
        guard authorization.utf8.count > 7, authorization.prefix(7).lowercased() == "bearer " else { return .failure(Failure(.missingProviderToken)) }
        let jwt = Self.trimmingSpaces(authorization.dropFirst(7))
        guard !jwt.isEmpty else { return .failure(Failure(.missingProviderToken)) }
        guard let verified = authenticator.verify(jwt) else { return .failure(Failure(.invalidProviderToken)) }
        if let env = verified.key.environment, env != connection.environment { return .failure(Failure(.badEnvironmentKeyIdInToken)) }
        if now.timeIntervalSince(verified.issuedAt) > configuration.providerTokenLifetime { return .failure(Failure(.expiredProviderToken)) }
        if let rejection = connection.adopt(token: jwt, teamID: verified.teamID, now: now,
                                            minimumInterval: configuration.providerTokenMinimumUpdateInterval) {
            return .failure(Failure(rejection))
        }
        connection.lastAuthorization = authorization
        connection.lastVerified = verified
        connection.lastVerifiedGeneration = generation
        return .success(verified)
    }
}
