import Foundation
import Synchronization
import HeraldIO
internal import CNGHTTP2

/// A client HTTP/2 connection over TLS (ALPN h2) or cleartext with prior knowledge (h2c).
///
/// Requests can be sent from any thread; they queue here and go out as the peer's
/// SETTINGS_MAX_CONCURRENT_STREAMS allows (it may change at any time: APNs starts token connections
/// at 1). Completions run on the connection's loop thread, so they must be quick.
public final class HTTP2ClientConnection: HTTP2Endpoint, @unchecked Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        /// nil speaks cleartext HTTP/2 with prior knowledge.
        public var tls: TLSContext?
        public var serverName: String?
        public var proxy: ProxyConfiguration?
        public var connectTimeout: Duration
        /// Idle time after which a PING checks the peer.
        public var pingInterval: Duration
        /// A PING unanswered this long means the peer is dead: the connection closes.
        public var pingTimeout: Duration
        /// Local cap on concurrent streams, whatever the peer allows.
        public var maxConcurrentStreams: Int
        /// Response headers to keep (lowercase); nil keeps all. Skipping the rest saves building strings
        /// for every response on a hot path.
        public var responseHeaders: Set<String>?
        /// Write the requests that answers free up part-way through handling a read, so the server starts on
        /// them while the rest of the read is handled. That pays off when this connection has its loop to
        /// itself; with several busy connections per loop the server already gets work from the others, and
        /// each early write is one more system call (docs/performance.md).
        public var writesEarly = true

        public init(host: String, port: Int, tls: TLSContext?, serverName: String? = nil, proxy: ProxyConfiguration? = nil,
                    connectTimeout: Duration = .seconds(10), pingInterval: Duration = .seconds(60),
                    pingTimeout: Duration = .seconds(10), maxConcurrentStreams: Int = 1000) {
            self.host = host
            self.port = port
            self.tls = tls
            self.serverName = serverName
            self.proxy = proxy
            self.connectTimeout = connectTimeout
            self.pingInterval = pingInterval
            self.pingTimeout = pingTimeout
            self.maxConcurrentStreams = maxConcurrentStreams
        }
    }

    final class ClientStream: HTTP2Stream, @unchecked Sendable {
        var request: HTTP2ClientRequest
        let handler: any HTTP2ResponseHandler
        let deadline: UInt64
        var done = false

        init(request: HTTP2ClientRequest, deadline: UInt64, handler: any HTTP2ResponseHandler) {
            self.request = request
            self.deadline = deadline
            self.handler = handler
            super.init(id: 0)
        }
    }

    public let configuration: Configuration
    private let inbox = Mutex<[ClientStream]>([])
    private let counters = Atomic<Int>(0)      // requests queued or in flight
    private let usable = Atomic<Bool>(true)
    private let sentCount = Atomic<Int>(0)

    // loop-confined
    private var waiting: [ClientStream] = []
    private var waitingHead = 0
    private var ready = false
    private var goingAway = false
    /// The server sent GOAWAY: streams still open are at or below its last stream id (nghttp2 closes the
    /// others as refused), so the server processes them.
    private var receivedGoAway = false
    private var readyContinuation: CheckedContinuation<Void, Error>?
    private var lastRead: UInt64 = MonotonicTime.now
    private var pingSentAt: UInt64?
    private var tickTimer: TimerID?
    private var closeReason = "connection closed"

    /// Receives requests this connection gave back unprocessed (GOAWAY, refused, closed before
    /// sending), so a pool can send them elsewhere. Without it they fail with `.notProcessed`.
    public var onRequeue: (@Sendable ([HTTP2ClientRequest], [any HTTP2ResponseHandler], [UInt64]) -> Void)?
    /// Called once, on the loop, when the connection is finished.
    public var onClose: (@Sendable (HTTP2ClientConnection) -> Void)?

    private let keptHeaders: [[UInt8]]?
    private let scheme: String
    private let authority: String
    /// `:method POST`, `:scheme` and `:authority`, the same for every POST (all of APNs' requests).
    private let postFields: HTTP2HeaderFields

    private init(configuration: Configuration, loop: EventLoop) {
        self.configuration = configuration
        scheme = configuration.tls == nil ? "http" : "https"
        authority = configuration.port == 443 ? configuration.host : "\(configuration.host):\(configuration.port)"
        postFields = HTTP2HeaderFields([(":method", "POST"), (":scheme", scheme), (":authority", authority)])
        keptHeaders = configuration.responseHeaders.map { $0.map { Array($0.utf8) } }
        super.init(loop: loop)
    }

    override func keepsHeader(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let keptHeaders else { return true }
        return keptHeaders.contains { $0.count == name.count && $0.elementsEqual(name) }
    }

    /// Connects, waits for the server's first SETTINGS, and returns a connection ready for requests.
    public static func connect(_ configuration: Configuration, loop: EventLoop? = nil) async throws -> HTTP2ClientConnection {
        let loop = loop ?? EventLoopGroup.shared.next()
        let conn = HTTP2ClientConnection(configuration: configuration, loop: loop)
        try await withCheckedThrowingContinuation { (cont: CheckedContinuation<Void, Error>) in
            loop.execute {
                conn.readyContinuation = cont
                StreamConnection.connect(host: configuration.host, port: configuration.port, tls: configuration.tls,
                                         serverName: configuration.serverName, proxy: configuration.proxy,
                                         timeout: configuration.connectTimeout, loop: loop, delegate: conn)
            }
        }
        return conn
    }

    /// False once the connection is closing (GOAWAY received or closed): send elsewhere.
    public var isUsable: Bool { usable.load(ordering: .relaxed) }
    /// Requests queued here or in flight.
    public var load: Int { counters.load(ordering: .relaxed) }

    /// Sends a request; `completion` runs on the connection's loop with the response or an error.
    /// `deadline` is in monotonic nanoseconds (`MonotonicTime.now + ...`), 0 for none.
    public func send(_ request: HTTP2ClientRequest, deadline: UInt64 = 0, completion: @escaping HTTP2Completion) {
        send(request, deadline: deadline, handler: ClosureResponseHandler(completion))
    }

    /// Sends a request; `handler` gets the response or an error on the connection's loop.
    public func send(_ request: HTTP2ClientRequest, deadline: UInt64 = 0, handler: any HTTP2ResponseHandler) {
        counters.wrappingAdd(1, ordering: .relaxed)
        let s = ClientStream(request: request, deadline: deadline, handler: handler)
        let first = inbox.withLock { box -> Bool in
            box.append(s)
            return box.count == 1
        }
        if first { loop.execute { [self] in drainInbox() } }
    }

    /// Sends many requests with one wake-up of the loop.
    public func send(batch: [(HTTP2ClientRequest, any HTTP2ResponseHandler)], deadline: UInt64 = 0) {
        guard !batch.isEmpty else { return }
        counters.wrappingAdd(batch.count, ordering: .relaxed)
        let streams = batch.map { ClientStream(request: $0.0, deadline: deadline, handler: $0.1) }
        let first = inbox.withLock { box -> Bool in
            let wasEmpty = box.isEmpty
            box.append(contentsOf: streams)
            return wasEmpty
        }
        if first { loop.execute { [self] in drainInbox() } }
    }

    public func send(_ request: HTTP2ClientRequest, timeout: Duration = .seconds(30)) async throws -> HTTP2ClientResponse {
        try await withCheckedThrowingContinuation { cont in
            send(request, deadline: MonotonicTime.now + timeout.nanosecondsValue) { cont.resume(with: $0.mapError { $0 }) }
        }
    }

    /// Stops taking requests, lets in-flight ones finish, then closes.
    public func close() {
        loop.execute { [self] in
            usable.store(false, ordering: .relaxed)
            goingAway = true
            if let session { nghttp2_session_terminate_session(session, UInt32(NGHTTP2_NO_ERROR.rawValue)) }
            requeueWaiting(reason: "connection closing")
            flush()
            if streams.isEmpty { stream?.close() }
        }
    }

    // MARK: loop side

    private func drainInbox() {
        let incoming = inbox.withLock { box -> [ClientStream] in
            let t = box
            box.removeAll(keepingCapacity: true)
            return t
        }
        if waitingHead > 0 && waitingHead == waiting.count { waiting.removeAll(keepingCapacity: true); waitingHead = 0 }
        waiting.append(contentsOf: incoming)
        if !ready { return }
        if goingAway || stream == nil { return requeueWaiting(reason: closeReason) }
        submitWaiting()
    }

    private var streamLimit: Int {
        guard let session else { return 0 }
        let remote = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return min(remote, configuration.maxConcurrentStreams)
    }

    private func submitWaiting() {
        guard let session, !goingAway else { return }
        let limit = streamLimit
        var submitted = false
        while streams.count < limit && waitingHead < waiting.count {
            let s = waiting[waitingHead]
            waitingHead += 1
            if s.done { continue }
            let userData = Unmanaged.passUnretained(s as HTTP2Stream).toOpaque()
            let id: Int32 = withHeaderBlock { block in
                if s.request.method == "POST" {
                    block.add(postFields)
                } else {
                    block.add(":method", s.request.method)
                    block.add(":scheme", scheme)
                    block.add(":authority", authority)
                }
                block.add(":path", s.request.path)
                if !s.request.sharedFields.isEmpty { block.add(s.request.sharedFields) }
                for h in s.request.ownFields { block.add(h.name, h.value) }
                return block.withNV { nva, count in
                    if s.request.body.isEmpty {
                        return nghttp2_submit_request(session, nil, nva, count, nil, userData)
                    }
                    s.outbound = s.request.body
                    var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: HTTP2Endpoint.bodyProvider)
                    return nghttp2_submit_request(session, nil, nva, count, &provider, userData)
                }
            }
            if id < 0 {
                complete(s, .failure(.notProcessed("nghttp2 refused the request: \(String(cString: nghttp2_strerror(id)))")))
                continue
            }
            streams[id] = s
            unflushed += 1
            submitted = true
        }
        if waitingHead == waiting.count { waiting.removeAll(keepingCapacity: true); waitingHead = 0 }
        if submitted { scheduleFlush() }
    }

    private func complete(_ s: ClientStream, _ result: Result<HTTP2ClientResponse, HTTP2ClientError>) {
        guard !s.done else { return }
        s.done = true
        counters.wrappingAdd(-1, ordering: .relaxed)
        if case .success = result { sentCount.wrappingAdd(1, ordering: .relaxed) }
        s.handler.requestCompleted(result)
    }

    private func requeueWaiting(reason: String) {
        var giveBack: [ClientStream] = []
        while waitingHead < waiting.count {
            giveBack.append(waiting[waitingHead])
            waitingHead += 1
        }
        waiting.removeAll(keepingCapacity: true)
        waitingHead = 0
        giveBackUnprocessed(giveBack, reason: reason)
    }

    private func giveBackUnprocessed(_ list: [ClientStream], reason: String) {
        guard !list.isEmpty else { return }
        if let onRequeue {
            for s in list { s.done = true }
            counters.wrappingAdd(-list.count, ordering: .relaxed)
            onRequeue(list.map(\.request), list.map(\.handler), list.map(\.deadline))
        } else {
            for s in list { complete(s, .failure(.notProcessed(reason))) }
        }
    }

    override func sessionReady() {
        guard let stream else { return }
        if configuration.tls != nil, stream.negotiatedProtocol != "h2" {
            let got = stream.negotiatedProtocol.map { "ALPN chose \($0)" } ?? "no ALPN protocol was chosen"
            failConnect("the server does not speak HTTP/2 over TLS (\(got))")
            stream.close()
            return
        }
        makeSession(server: false)
        submitSettings([
            (Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), 0),
            (Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), 1 << 20),
        ])
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20)
        flush()
        tickTimer = loop.schedule(after: .milliseconds(250)) { [self] in tick() }
    }

    private func failConnect(_ message: String) {
        readyContinuation?.resume(throwing: HTTP2ClientError.connectFailed(message))
        readyContinuation = nil
    }

    public override func stream(_ stream: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        lastRead = MonotonicTime.now
        // Every answer frees a stream and submits a waiting request at once. Handing the read to nghttp2 in
        // parts and writing those requests between the parts lets the server start on them while the rest
        // of the answers are handled here, instead of both sides taking turns with the whole window.
        guard configuration.writesEarly else { return super.stream(stream, didRead: bytes) }
        let slice = max(Self.minimumSlice, bytes.count / Self.slicesPerRead)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + slice)
            super.stream(stream, didRead: UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
            offset = end
            if offset < bytes.count && unflushed >= Self.earlyWriteThreshold { flush() }
        }
    }

    // Measured against nghttpd, 1 connection x 100 streams (docs/performance.md): whole reads reached 0.69 of
    // h2load's rate, 4 parts 0.92, up to 16 parts of at least 256 bytes with a write once 8 requests wait 1.08.
    private static let slicesPerRead = 16
    private static let minimumSlice = 256
    private static let earlyWriteThreshold = 8
    /// Requests submitted since the last write.
    private var unflushed = 0

    override func flush() {
        unflushed = 0
        super.flush()
    }

    override func frameReceived(type: UInt8, streamID: Int32, flags: UInt8, frame: UnsafePointer<nghttp2_frame>) {
        switch Int(type) {
        case Int(NGHTTP2_SETTINGS.rawValue) where flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            if !ready {
                ready = true
                readyContinuation?.resume()
                readyContinuation = nil
            }
            // The limit may have grown (APNs: after the first accepted token request) or shrunk.
            submitWaiting()
        case Int(NGHTTP2_PING.rawValue) where flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
            pingSentAt = nil
        case Int(NGHTTP2_GOAWAY.rawValue):
            goingAway = true
            receivedGoAway = true
            usable.store(false, ordering: .relaxed)
            let debug = frame.pointee.goaway.opaque_data_len > 0
                ? String(decoding: UnsafeBufferPointer(start: frame.pointee.goaway.opaque_data, count: frame.pointee.goaway.opaque_data_len), as: UTF8.self)
                : ""
            closeReason = "GOAWAY from the server" + (debug.isEmpty ? "" : ": \(debug)")
            requeueWaiting(reason: closeReason)
        default:
            break
        }
    }

    override func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let removed = streams.removeValue(forKey: streamID) else { return }
        let s = unsafeDowncast(removed, to: ClientStream.self)
        if s.done {
            // Timed out earlier: already answered.
        } else if errorCode == UInt32(NGHTTP2_REFUSED_STREAM.rawValue) {
            giveBackUnprocessed([s], reason: goingAway ? closeReason : "the server refused the stream")
        } else if errorCode != 0 {
            complete(s, .failure(.streamReset(errorCode)))
        } else if s.status != 0 {
            complete(s, .success(HTTP2ClientResponse(status: s.status, headers: HTTPHeaders(s.headers), body: s.body)))
        } else {
            complete(s, .failure(.connectionLost("the stream ended without a response")))
        }
        if goingAway && streams.isEmpty { stream?.close() } else { submitWaiting() }
    }

    override func connectionClosed(error: IOError?) {
        usable.store(false, ordering: .relaxed)
        goingAway = true
        if let t = tickTimer { loop.cancelTimer(t) }
        let why = error?.description ?? closeReason
        if !ready {
            failConnect(why)
        }
        let inFlight = streams.values.sorted { $0.id < $1.id }.map { unsafeDowncast($0, to: ClientStream.self) }
        streams.removeAll()
        for s in inFlight { complete(s, .failure(receivedGoAway ? .unansweredAfterGoAway(why) : .connectionLost(why))) }
        requeueWaiting(reason: why)
        onClose?(self)
        onClose = nil
        // `onRequeue` stays: a request handed to this connection just before it closed (the pool picked
        // it a moment before the GOAWAY) still arrives, and must be given back, not failed as an attempt.
    }

    /// Pings an idle peer, closes on a dead one, and expires requests past their deadline.
    private func tick() {
        guard let session, stream != nil else { return }
        let now = MonotonicTime.now
        if let sent = pingSentAt {
            if now - sent > configuration.pingTimeout.nanosecondsValue {
                closeReason = "the server did not answer PING within \(configuration.pingTimeout)"
                stream?.closeAbruptly()
                return
            }
        } else if now - lastRead > configuration.pingInterval.nanosecondsValue {
            nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
            pingSentAt = now
            scheduleFlush()
        }
        for (id, stream) in streams {
            let s = unsafeDowncast(stream, to: ClientStream.self)
            guard !s.done, s.deadline != 0, s.deadline < now else { continue }
            // Stays in `streams` (nghttp2 holds a pointer to it) until the reset closes the stream.
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, UInt32(NGHTTP2_CANCEL.rawValue))
            complete(s, .failure(.timeout))
            scheduleFlush()
        }
        var i = waitingHead
        while i < waiting.count {
            let s = waiting[i]
            if s.deadline != 0 && s.deadline < now && !s.done { complete(s, .failure(.timeout)) }
            i += 1
        }
        submitWaiting()
        tickTimer = loop.schedule(after: .milliseconds(250)) { [self] in tick() }
    }
}
