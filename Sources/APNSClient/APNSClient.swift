import Foundation
import Synchronization
import APNSCore
import HeraldCrypto
import HeraldHTTP
import HeraldIO

/// The result of one notification in a batch.
public struct APNSDeliveryResult: Sendable {
    /// Position in the batch as given.
    public let index: Int
    public let deviceToken: DeviceToken
    public let result: Result<APNSSuccess, APNSClientError>
    /// Requests made for it (retries included).
    public let attempts: Int
}

/// An HTTP/2 APNs client: a pool of connections per credential and endpoint, a bound on notifications
/// in flight, retries with backoff for transient failures, and provider tokens shared by all connections.
public final class APNSClient: Sendable {
    public struct Configuration: Sendable {
        public var environment: APNSEnvironment
        public var credentials: APNSCredentials
        /// Trust only this CA (PEM file) instead of the system store: the simulator, a TLS-inspecting proxy.
        public var caFile: String?
        /// Connect without TLS, HTTP/2 with prior knowledge (a local h2c simulator or sink).
        public var cleartext: Bool
        public var proxy: ProxyConfiguration?
        /// Connections in the pool.
        public var connections: Int
        /// Notifications in flight across the pool, at most.
        public var maxInFlight: Int
        /// When set, fewer may be in flight when the peer answers fast enough not to need `maxInFlight`, down to
        /// this many (`InFlightWindow`): what is on the wire when a server dies is sent again after its restart,
        /// so a server keeps no more there than the peer's rate needs. nil: always `maxInFlight`.
        public var minInFlight: Int?
        /// Local cap on streams per connection (the server's SETTINGS may allow fewer).
        public var maxStreamsPerConnection: Int
        /// How long one request may wait for its answer.
        public var requestTimeout: Duration
        public var connectTimeout: Duration
        public var pingInterval: Duration
        public var pingTimeout: Duration
        public var retry: RetryPolicy

        public init(environment: APNSEnvironment, credentials: APNSCredentials, caFile: String? = nil, cleartext: Bool = false,
                    proxy: ProxyConfiguration? = nil, connections: Int = 2, maxInFlight: Int = 2000,
                    maxStreamsPerConnection: Int = 1000, requestTimeout: Duration = .seconds(30),
                    connectTimeout: Duration = .seconds(10), pingInterval: Duration = .seconds(60),
                    pingTimeout: Duration = .seconds(10), retry: RetryPolicy = RetryPolicy()) {
            self.environment = environment
            self.credentials = credentials
            self.caFile = caFile
            self.cleartext = cleartext
            self.proxy = proxy
            self.connections = connections
            self.maxInFlight = maxInFlight
            self.maxStreamsPerConnection = maxStreamsPerConnection
            self.requestTimeout = requestTimeout
            self.connectTimeout = connectTimeout
            self.pingInterval = pingInterval
            self.pingTimeout = pingTimeout
            self.retry = retry
        }
    }

    public let configuration: Configuration
    let tokens: ProviderTokenSource?
    private let pool: APNSConnectionPool
    private let limiter: InFlightLimiter
    private let window: InFlightWindow?
    private let observer: APNSClientObserver

    public init(configuration: Configuration, observer: APNSClientObserver? = nil, group: EventLoopGroup = .shared,
                now: @escaping @Sendable () -> Date = Date.init) throws {
        self.configuration = configuration
        self.observer = observer ?? NoObserver()
        var tls: TLSContext?
        if !configuration.cleartext {
            var identity: CertificateIdentity?
            if case let .certificate(id) = configuration.credentials { identity = id }
            let trust: TLSTrust = configuration.caFile.map { .caFile($0) } ?? .system
            tls = try TLSContext(client: TLSClientConfiguration(trust: trust, identity: identity))
        }
        if case let .token(key) = configuration.credentials {
            tokens = ProviderTokenSource(signingKey: key, now: now)
        } else {
            tokens = nil
        }
        var template = HTTP2ClientConnection.Configuration(
            host: configuration.environment.host, port: configuration.environment.port, tls: tls,
            proxy: configuration.proxy, connectTimeout: configuration.connectTimeout,
            pingInterval: configuration.pingInterval, pingTimeout: configuration.pingTimeout,
            maxConcurrentStreams: configuration.maxStreamsPerConnection)
        template.responseHeaders = ["apns-id", "apns-unique-id", "retry-after"]
        template.writesEarly = configuration.connections <= group.loops.count
        pool = APNSConnectionPool(template: template, size: configuration.connections, observer: self.observer, group: group,
                                  requestTimeout: configuration.requestTimeout)
        // A sized window starts at its floor; its first request is a probe, whose answer sizes it.
        let limiter = InFlightLimiter(limit: min(configuration.minInFlight ?? .max, configuration.maxInFlight), floor: configuration.minInFlight)
        self.limiter = limiter
        window = configuration.minInFlight == nil ? nil : InFlightWindow(limiter: limiter, ceiling: configuration.maxInFlight, observer: self.observer)
    }

    /// Sends one notification and returns APNs' answer. Transient failures are retried per the policy.
    public func send(_ notification: APNSNotification) async throws(APNSClientError) -> APNSSuccess {
        let result = await withCheckedContinuation { (cont: CheckedContinuation<APNSDeliveryResult, Never>) in
            Task { await self.send(batch: [notification]) { cont.resume(returning: $0) } }
        }
        return try result.result.get()
    }

    /// Sends many notifications as fast as the connections allow, calling `onResult` once per notification
    /// (from I/O threads, in completion order). Returns when every notification has its result.
    public func send<S: Sequence>(batch notifications: S, onResult: @escaping @Sendable (APNSDeliveryResult) -> Void) async
    where S.Element == APNSNotification {
        var requests: [APNSPreparedRequest] = []
        var indices: [Int] = []
        var allValid = true
        for (index, n) in notifications.enumerated() {
            do throws(APNSValidationError) {
                requests.append(try n.prepare())
                indices.append(index)
            } catch {
                allValid = false
                onResult(APNSDeliveryResult(index: index, deviceToken: n.deviceToken, result: .failure(.invalid(error)), attempts: 0))
            }
        }
        await deliver(requests, indices: allValid ? nil : indices, onResult)
    }

    /// Like `send(batch:)` for requests already validated and encoded (`APNSNotification.prepare()`),
    /// so a caller that validated up front does not pay for it twice.
    public func send<S: Sequence>(prepared requests: S, onResult: @escaping @Sendable (APNSDeliveryResult) -> Void) async
    where S.Element == APNSPreparedRequest {
        await deliver(Array(requests), indices: nil, onResult)   // no copy when it already is an array
    }

    // Concrete types on purpose: a generic sequence here was iterated through witness tables, with a tuple
    // type looked up per element (~6k instructions per notification on the sending thread). A `Delivery`
    // refers to its request in the array rather than copying it (a copy retained each of its strings and its
    // body, and released them when done). `indices` maps positions to the caller's, when they differ.
    private func deliver(_ requests: [APNSPreparedRequest], indices: [Int]?, _ onResult: @escaping @Sendable (APNSDeliveryResult) -> Void) async {
        // A chunk takes its room in the limiter at once, so it is never larger than the limit (a limit below 64
        // let each chunk of 64 through on the limit's worth of room, putting more than the limit on the wire).
        // Each chunk costs a wake-up of this task and of the event loop, and goes to one connection: 64 per
        // connection, up to a quarter of the limit. Over four connections with a limit of 1,600 (`herald send
        // --connections 4 --concurrency 1600`) chunks of 256 took 7% less CPU per request than 64 (row 1, 4x100);
        // over one connection larger chunks only made the wire burstier. A limit that follows the peer (a
        // server's window, 256) keeps chunks of 64, so the wire stays full while one chunk waits for its room.
        let chunkSize = max(min(64, limiter.floor), min(64 * configuration.connections, limiter.floor / 4))
        var chunk: [Delivery] = []
        chunk.reserveCapacity(chunkSize)
        // This call's own notifications: concurrent calls sharing the client (the server's dispatch slots)
        // must not wait for each other's, as waiting for the whole client to go idle would make them.
        let outstanding = OutstandingResults()
        let counted: @Sendable (APNSDeliveryResult) -> Void = { result in
            onResult(result)
            outstanding.finishOne()
        }
        for i in requests.indices {
            outstanding.add()
            chunk.append(Delivery(client: self, index: indices?[i] ?? i, batch: requests, position: i, onResult: counted))
            if chunk.count == chunkSize {
                await dispatch(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { await dispatch(chunk) }
        await outstanding.waitUntilNone()
    }

    /// Closes every connection. Notifications still waiting fail with `.shutdown`.
    public func shutdown() { pool.shutdown() }

    // MARK: - Delivery machinery

    /// One notification on its way, across retries; the connection hands it the response.
    final class Delivery: HTTP2ResponseHandler, @unchecked Sendable {
        let client: APNSClient
        let index: Int
        /// The requests of the `send` call this one belongs to, which stay alive until all are answered anyway,
        /// and its place among them: one retain of the array instead of a copy of the request.
        private let batch: [APNSPreparedRequest]
        private let position: Int
        /// Lent in place (a getter would hand out a copy).
        var prepared: APNSPreparedRequest {
            _read { yield batch[position] }
        }
        let onResult: @Sendable (APNSDeliveryResult) -> Void
        var attempts = 0
        var renewedToken = false
        let started = MonotonicTime.now
        var authorization: String?
        /// The number of the window's probe this is (sent alone on an empty wire) until its first answer, and when
        /// it was handed to its connection.
        var probe: UInt64?
        var sentAt: UInt64 = 0
        /// The `apns-id` header this request goes out with (its `prepared.apnsID` formatted once), kept so that
        /// the answer's echo of it is recognised by comparing text instead of parsing it again.
        let sentAPNSID: String?

        init(client: APNSClient, index: Int, batch: [APNSPreparedRequest], position: Int,
             onResult: @escaping @Sendable (APNSDeliveryResult) -> Void) {
            self.client = client
            self.index = index
            self.batch = batch
            self.position = position
            self.onResult = onResult
            sentAPNSID = batch[position].apnsIDHeaderValue
        }

        func requestCompleted(_ result: Result<HTTP2ClientResponse, HTTP2ClientError>) { client.complete(self, result) }
    }

    private func dispatch(_ chunk: [Delivery]) async {
        guard let window, let probe = window.startProbe() else {
            await limiter.acquire(chunk.count)
            return await send(chunk[...])
        }
        chunk[0].probe = probe
        await send(chunk[..<1])
        Task { await window.expire(probe) }
        guard chunk.count > 1 else { return }
        await limiter.acquire(chunk.count - 1)   // once the probe is answered
        await send(chunk[1...])
    }

    /// Sends a chunk that has its room in the limiter.
    private func send(_ chunk: ArraySlice<Delivery>) async {
        let authorization: String?
        do {
            authorization = try tokens?.authorization()
        } catch {
            for d in chunk { finish(d, .failure(.credentials("cannot sign the provider token: \(error)"))) }
            return
        }
        // An attempt counts from here: a connection that cannot be opened uses up attempts too, or an
        // unreachable endpoint would be retried forever.
        for d in chunk { d.attempts += 1 }
        let connection: HTTP2ClientConnection
        do {
            connection = try await pool.connection()
        } catch {
            for d in chunk { handleTransportFailure(d, clientError(from: error)) }
            return
        }
        let now = MonotonicTime.now
        let deadline = now + configuration.requestTimeout.nanosecondsValue
        var shared = SharedHeaders()
        connection.send(count: chunk.count, deadline: deadline) { i in
            let d = chunk[chunk.startIndex + i]
            d.authorization = authorization
            d.sentAt = now
            observer.sent()
            return (request(for: d, authorization: authorization, sharing: &shared), d)
        }
    }

    /// Sends one delivery again (a retry), holding its existing in-flight slot.
    private func redispatch(_ d: Delivery) async {
        let authorization: String?
        do {
            authorization = try tokens?.authorization()
        } catch {
            return finish(d, .failure(.credentials("cannot sign the provider token: \(error)")))
        }
        d.attempts += 1
        do {
            let connection = try await pool.connection()
            d.authorization = authorization
            observer.sent()
            var unshared = SharedHeaders()
            connection.send(request(for: d, authorization: authorization, sharing: &unshared),
                            deadline: MonotonicTime.now + configuration.requestTimeout.nanosecondsValue, handler: d)
        } catch {
            handleTransportFailure(d, clientError(from: error))
        }
    }

    /// The fields of the previous request in a chunk, reused by the next one when every shared header
    /// matches: a batch to one topic then encodes its fields once, not once per request.
    private struct SharedHeaders {
        var source: APNSPreparedRequest?
        var authorization: String?
        var fields = HTTP2HeaderFields.empty

        func matches(_ request: borrowing APNSPreparedRequest) -> Bool {
            guard let source else { return false }
            return source.sharesHeaders(with: request)
        }
    }

    private func request(for d: Delivery, authorization: String?, sharing shared: inout SharedHeaders) -> HTTP2ClientRequest {
        // `d.prepared` is read in place each time: a local copy of it would retain all of its fields.
        if shared.authorization != authorization || !shared.matches(d.prepared) {
            shared.source = d.prepared
            shared.authorization = authorization
            shared.fields = HTTP2HeaderFields(sharedHeaders(for: d.prepared, authorization: authorization))
        }
        return HTTP2ClientRequest(method: "POST", path: d.prepared.path, sharedFields: shared.fields, ownFields: ownHeaders(for: d),
                                  body: d.prepared.body)
    }

    /// The headers a batch's requests have in common.
    private func sharedHeaders(for p: APNSPreparedRequest, authorization: String?) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(6)
        if let authorization { headers.append(("authorization", authorization)) }
        headers.append(("apns-topic", p.topic))
        headers.append(("apns-push-type", p.pushType.rawValue))
        headers.append(("apns-priority", String(p.priority.rawValue)))
        if let e = p.expiration { headers.append(("apns-expiration", e.headerValue)) }
        if let c = p.collapseID { headers.append(("apns-collapse-id", c)) }
        return headers
    }

    /// The headers of one request alone: its apns-id, when the caller chose one.
    private func ownHeaders(for d: Delivery) -> [(name: String, value: String)] {
        guard let id = d.sentAPNSID else { return [] }
        return [("apns-id", id)]
    }

    private func complete(_ d: Delivery, _ result: Result<HTTP2ClientResponse, HTTP2ClientError>) {
        if case .success = result { endProbe(d, answered: true) }
        switch result {
        case let .success(response):
            let outcome = APNSResponse.interpret(status: response.status, apnsID: response.headers["apns-id"],
                                                 apnsUniqueID: response.headers["apns-unique-id"], body: response.body,
                                                 requestAPNSID: d.prepared.apnsID, requestAPNSIDText: d.sentAPNSID)
            switch outcome {
            case let .success(ok):
                finish(d, .success(ok))
            case let .failure(error):
                if error.reason == .expiredProviderToken, !d.renewedToken, let tokens, let auth = d.authorization {
                    // Apple: regenerate and retry once.
                    d.renewedToken = true
                    _ = try? tokens.tokenWasRejectedAsExpired(String(auth.dropFirst("bearer ".count)))
                    Task { await redispatch(d) }
                } else if error.isRetryable && d.attempts < configuration.retry.maxAttempts {
                    retryLater(d, retryAfter: response.headers["retry-after"].flatMap(Int.init).map { .seconds($0) })
                } else {
                    finish(d, .failure(.rejected(error)))
                }
            }
        case let .failure(error):
            handleTransportFailure(d, .transport(error))
        }
    }

    /// Gives the wire back if `d` was the window's probe: sized by its answer time, or as it was when it got none.
    private func endProbe(_ d: Delivery, answered: Bool) {
        guard let probe = d.probe else { return }
        d.probe = nil
        window?.probeEnded(probe, answerTime: answered ? MonotonicTime.now - d.sentAt : nil)
    }

    private func handleTransportFailure(_ d: Delivery, _ error: APNSClientError) {
        endProbe(d, answered: false)
        if case .shutdown = error { return finish(d, .failure(error)) }
        // The server said it processes this one: sending it again could deliver it twice.
        if case .transport(.unansweredAfterGoAway) = error { return finish(d, .failure(error)) }
        if d.attempts < configuration.retry.maxAttempts {
            retryLater(d, retryAfter: nil)
        } else {
            finish(d, .failure(error))
        }
    }

    private func retryLater(_ d: Delivery, retryAfter: Duration?) {
        let delay = configuration.retry.delay(afterAttempt: d.attempts, retryAfter: retryAfter)
        Task {
            try? await Task.sleep(for: delay)
            await redispatch(d)
        }
    }

    private func finish(_ d: Delivery, _ result: Result<APNSSuccess, APNSClientError>) {
        endProbe(d, answered: false)
        let latency = Double(MonotonicTime.now - d.started) / 1e9
        switch result {
        case .success: observer.accepted(latency: latency)
        case let .failure(.rejected(e)): observer.rejected(status: e.status, reason: e.reason, latency: latency)
        case let .failure(e): observer.failed(e)
        }
        d.onResult(APNSDeliveryResult(index: d.index, deviceToken: d.prepared.deviceToken, result: result, attempts: d.attempts))
        limiter.release(1)
    }

    private func clientError(from error: Error) -> APNSClientError {
        if let e = error as? APNSClientError { return e }
        if let e = error as? HTTP2ClientError { return .transport(e) }
        return .transport(.connectFailed("\(error)"))
    }
}
