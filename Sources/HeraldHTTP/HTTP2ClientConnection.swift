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
        let request: HTTP2ClientRequest
        let handler: any HTTP2ResponseHandler
        let deadline: UInt64
        var done = false
        /// nghttp2's id for it, once submitted.
        var streamID: Int32 = 0
        /// Links in the connection's list of open streams, oldest first; the list owns `next`.
        var next: ClientStream?
        unowned(unsafe) var previous: ClientStream?

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
    /// Streams submitted to nghttp2 and not closed yet, oldest first (so in stream id order). A client finds
    /// a stream by id through nghttp2's stream user data, so it needs no dictionary: inserting into and
    /// removing from one (hashing the id) cost ~500 instructions per request. The list keeps them alive
    /// while nghttp2 points at them.
    private var openFirst: ClientStream?
    private unowned(unsafe) var openLast: ClientStream?
    private var openCount = 0
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
    /// sending), so a pool can send them elsewhere, with a deadline of its own (the server never had them).
    /// Without it they fail with `.notProcessed`.
    public var onRequeue: (@Sendable ([HTTP2ClientRequest], [any HTTP2ResponseHandler]) -> Void)?
    /// Called once, on the loop, when the connection is finished.
    public var onClose: (@Sendable (HTTP2ClientConnection) -> Void)?

    private let keptHeaders: [[UInt8]]?
    /// Bit n set when a kept name has n bytes (names of 64 bytes or more are never kept).
    private let keptLengths: UInt64
    private let scheme: String
    private let authority: String
    /// `:method POST`, `:scheme` and `:authority`, the same for every POST (all of APNs' requests).
    private let postFields: HTTP2HeaderFields

    private init(configuration: Configuration, loop: EventLoop) {
        self.configuration = configuration
        scheme = configuration.tls == nil ? "http" : "https"
        authority = configuration.port == 443 ? configuration.host : "\(configuration.host):\(configuration.port)"
        postFields = HTTP2HeaderFields([(":method", "POST"), (":scheme", scheme), (":authority", authority)])
        let kept = configuration.responseHeaders.map { $0.map { Array($0.utf8) }.filter { $0.count < 64 } }
        keptHeaders = kept
        keptLengths = (kept ?? []).reduce(0) { $0 | 1 << UInt64($1.count) }
        super.init(loop: loop)
    }

    override func keepsHeader(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let keptHeaders else { return true }
        // Most fields of a response are not kept (a server's `date`, `server`, ...): their length alone
        // usually says so, without comparing bytes.
        guard name.count < 64, keptLengths & (1 << UInt64(name.count)) != 0 else { return false }
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
        send(count: batch.count, deadline: deadline) { batch[$0] }
    }

    /// Sends `count` requests with one wake-up of the loop, each made by `make(i)` on the caller's thread and
    /// handed over as made: taken from an array instead, each would be copied, a retain of every field of it.
    public func send(count: Int, deadline: UInt64 = 0, _ make: (Int) -> (HTTP2ClientRequest, any HTTP2ResponseHandler)) {
        guard count > 0 else { return }
        counters.wrappingAdd(count, ordering: .relaxed)
        let streams = (0..<count).map { i in
            let (request, handler) = make(i)
            return ClientStream(request: request, deadline: deadline, handler: handler)
        }
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
            if openCount == 0 { stream?.close() }
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
        while openCount < limit && waitingHead < waiting.count {
            let s = waiting[waitingHead]
            waitingHead += 1
            if s.done { continue }
            let id = submit(s, session)
            if id < 0 {
                complete(s, .failure(.notProcessed("nghttp2 refused the request: \(String(cString: nghttp2_strerror(id)))")))
                continue
            }
            s.streamID = id
            addOpen(s)
            unflushed += 1
            submitted = true
        }
        if waitingHead == waiting.count { waiting.removeAll(keepingCapacity: true); waitingHead = 0 }
        if submitted { scheduleFlush() }
    }

    /// Hands one request to nghttp2, which copies its header block on submit. A POST's fields are pointed at
    /// where they already are (the connection's pseudo-headers, the request's path and own strings, its
    /// shared fields) in a stack-allocated array: copying them into the reused `HeaderBlock` first cost ~2k
    /// instructions per request on the event loop (buffer resets, retains, exclusivity checks).
    ///
    /// `s.request` is read in place, field by field: a local copy of it would retain every field.
    private func submit(_ s: ClientStream, _ session: OpaquePointer) -> Int32 {
        let userData = Unmanaged.passUnretained(s as HTTP2Stream).toOpaque()
        let hasBody = !s.request.body.isEmpty
        if hasBody { s.outbound = s.request.body }
        guard s.request.method == "POST" else { return submitBuilt(s.request, session, userData) }
        let shared = s.request.sharedFields.nv
        let count = postFields.nv.count + 1 + shared.count + s.request.ownFields.count
        return withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: count) { nva in
            var at = 0
            for field in postFields.nv { nva[at] = Self.uncopied(field); at += 1 }
            var path = s.request.path
            return path.withUTF8 { pathBytes in
                nva[at] = Self.field(Self.pseudoPath, pathBytes)
                at += 1
                for field in shared { nva[at] = Self.uncopied(field); at += 1 }
                return Self.withFields(s.request.ownFields, from: 0, in: nva, at: at) { count in
                    Self.submitRequest(session, nva.baseAddress!, count, hasBody: hasBody, userData)
                }
            }
        }
    }

    /// Other methods (not APNs' traffic) go through the connection's reused header block.
    private func submitBuilt(_ request: HTTP2ClientRequest, _ session: OpaquePointer, _ userData: UnsafeMutableRawPointer) -> Int32 {
        withHeaderBlock { block in
            block.add(":method", request.method)
            block.add(":scheme", scheme)
            block.add(":authority", authority)
            block.add(":path", request.path)
            if !request.sharedFields.isEmpty { block.add(request.sharedFields) }
            for h in request.ownFields { block.add(h.name, h.value, indexed: false) }
            return block.withNV { nva, count in
                Self.submitRequest(session, nva, count, hasBody: !request.body.isEmpty, userData)
            }
        }
    }

    private static func submitRequest(_ session: OpaquePointer, _ nva: UnsafePointer<nghttp2_nv>, _ count: Int, hasBody: Bool,
                                      _ userData: UnsafeMutableRawPointer) -> Int32 {
        guard hasBody else { return nghttp2_submit_request(session, nil, nva, count, nil, userData) }
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: HTTP2Endpoint.bodyProvider)
        return nghttp2_submit_request(session, nil, nva, count, &provider, userData)
    }

    private static let pseudoPath = HTTP2HeaderFields([(":path", "")])

    /// A field nghttp2 may read in place instead of copying on submit: it reads a request's fields once, when
    /// it encodes the HEADERS frame, which happens while the stream is open, and an open stream is in
    /// the open list, whose `ClientStream` keeps its request's shared fields alive (the pseudo-headers live as
    /// long as the connection). Saves copying the ~200-byte provider token per request.
    private static func uncopied(_ field: nghttp2_nv) -> nghttp2_nv {
        var field = field
        field.flags |= UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
        return field
    }

    private static func field(_ name: HTTP2HeaderFields, _ value: UnsafeBufferPointer<UInt8>) -> nghttp2_nv {
        var nv = name.nv[0]
        nv.value = UnsafeMutablePointer(mutating: value.baseAddress)
        nv.valuelen = value.count
        return nv
    }

    /// Points `nva[at...]` at the UTF-8 of `fields[i...]` (native strings are not copied) and calls `body`
    /// with the number of fields filled. Names are sent as given: HTTP/2 wants them lowercase.
    private static func withFields(_ fields: [(name: String, value: String)], from i: Int, in nva: UnsafeMutableBufferPointer<nghttp2_nv>,
                                   at: Int, _ body: (Int) -> Int32) -> Int32 {
        guard i < fields.count else { return body(at) }
        var name = fields[i].name
        var value = fields[i].value
        return name.withUTF8 { n in
            value.withUTF8 { v in
                nva[at] = nghttp2_nv(name: UnsafeMutablePointer(mutating: n.baseAddress), value: UnsafeMutablePointer(mutating: v.baseAddress),
                                     namelen: n.count, valuelen: v.count, flags: HTTP2HeaderFields.neverIndexed)
                return withFields(fields, from: i + 1, in: nva, at: at + 1, body)
            }
        }
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
            onRequeue(list.map(\.request), list.map(\.handler))
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

    private func addOpen(_ s: ClientStream) {
        s.previous = openLast
        if let last = openLast { last.next = s } else { openFirst = s }
        openLast = s
        openCount += 1
    }

    private func removeOpen(_ s: ClientStream) {
        let next = s.next
        if let previous = s.previous { previous.next = next } else { openFirst = next }
        if let next { next.previous = s.previous } else { openLast = s.previous }
        s.next = nil
        s.previous = nil
        openCount -= 1
    }

    /// Empties the open list front to back, returning its streams in order (a chain of strong `next` links
    /// released at once would deinit recursively, one stack frame per stream).
    private func removeAllOpen() -> [ClientStream] {
        var all: [ClientStream] = []
        all.reserveCapacity(openCount)
        while let s = openFirst {
            openFirst = s.next
            s.next = nil
            s.previous = nil
            all.append(s)
        }
        openLast = nil
        openCount = 0
        return all
    }

    deinit { _ = removeAllOpen() }

    override func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let session, let raw = nghttp2_session_get_stream_user_data(session, streamID) else { return }
        let s = unsafeDowncast(Unmanaged<HTTP2Stream>.fromOpaque(raw).takeUnretainedValue(), to: ClientStream.self)
        removeOpen(s)
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
        if goingAway && openCount == 0 { stream?.close() } else { submitWaiting() }
    }

    override func connectionClosed(error: IOError?) {
        usable.store(false, ordering: .relaxed)
        goingAway = true
        if let t = tickTimer { loop.cancelTimer(t) }
        let why = error?.description ?? closeReason
        if !ready {
            failConnect(why)
        }
        let inFlight = removeAllOpen()
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
        var next = openFirst
        while let s = next {
            next = s.next
            guard !s.done, s.deadline != 0, s.deadline < now else { continue }
            // Stays in the open list (nghttp2 holds a pointer to it) until the reset closes the stream.
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), s.streamID, UInt32(NGHTTP2_CANCEL.rawValue))
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
