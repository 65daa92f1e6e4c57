import Foundation
import HeraldIO
import HeraldCrypto
internal import CNGHTTP2

/// One accepted HTTP/2 connection (TLS with ALPN h2, or cleartext with prior knowledge).
/// Confined to its loop: the delegate is called there and may use these methods there.
public final class HTTP2ServerConnection: HTTP2Endpoint, @unchecked Sendable {
    public let id: UInt64
    public let isTLS: Bool
    public let remoteAddress: String
    /// The client certificate (DER) presented in the TLS handshake, if any.
    public private(set) var peerCertificateDER: [UInt8]?
    /// The client certificate presented in the TLS handshake, parsed (nil without one or if unparsable).
    public private(set) lazy var peerCertificate: Certificate? = peerCertificateDER.flatMap { try? Certificate(der: $0) }
    /// The delegate's per-connection state.
    public var context: AnyObject?
    let delegate: HTTP2ServerDelegate
    let responderLink = ResponderLink()
    /// SETTINGS_MAX_CONCURRENT_STREAMS as last set: the server's default until the delegate changes it.
    private var advertisedMaxStreams: UInt32
    /// Whether the connection's first SETTINGS has been queued; before that a new limit only changes what
    /// it carries, since a second SETTINGS queued behind it would be overridden by it.
    private var sentInitialSettings = false
    /// The highest stream whose request went to the delegate.
    private var lastHandedStreamID: Int32 = 0
    /// Set by `goAway`: the last stream this connection processes. Requests above it are refused, never
    /// handed over, so a client may safely send them again elsewhere.
    private var goAwayLastStreamID: Int32?

    /// `HTTP2Server.Configuration.uniqueResponseHeaders`: a few names, compared in turn.
    private let uniqueResponseHeaders: [String]

    init(id: UInt64, loop: EventLoop, isTLS: Bool, remoteAddress: String, delegate: HTTP2ServerDelegate, maxConcurrentStreams: UInt32,
         uniqueResponseHeaders: [String]) {
        self.id = id
        self.uniqueResponseHeaders = uniqueResponseHeaders
        self.isTLS = isTLS
        self.remoteAddress = remoteAddress
        self.delegate = delegate
        advertisedMaxStreams = maxConcurrentStreams
        super.init(loop: loop)
        responderLink.connection = self
    }

    override func sessionReady() {
        guard let stream else { return }
        if let alpn = stream.negotiatedProtocol, alpn != "h2" {
            stream.close()
            return
        }
        peerCertificateDER = stream.peerCertificateDER
        makeSession(server: true)
        delegate.connectionOpened(self)
        if let fixed = delegate.fixedResponse(for: self) {
            fixedResponse = FixedResponseBlock(fixed)
            keepsBodies = false
        }
        submitSettings([
            (Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), advertisedMaxStreams),
            (Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), 1 << 20),
        ])
        sentInitialSettings = true
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20)
        flush()
    }

    private var fixedResponse: FixedResponseBlock?

    override func keepsHeader(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let fixedResponse else { return true }
        return HeaderInterner.equal(fixedResponse.echoedName, name)
    }

    /// Advertises a new SETTINGS_MAX_CONCURRENT_STREAMS (APNs: 1 until the first good token request).
    /// Called from `connectionOpened` it replaces the initial value.
    public func updateMaxConcurrentStreams(_ n: UInt32) {
        advertisedMaxStreams = n
        guard sentInitialSettings else { return }
        submitSettings([(Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), n)])
    }

    /// Sends GOAWAY with `debugData` (APNs sends `{"reason":"..."}`). Its last stream is the newest request
    /// handed to the delegate: those requests are still answered, later ones are refused (REFUSED_STREAM).
    /// The socket closes once every answer is written, or after `goAwayGrace` for answers that never come.
    public func goAway(errorCode: UInt32 = 0, debugData: [UInt8] = []) {
        guard let session, goAwayLastStreamID == nil else { return }
        let last = lastHandedStreamID
        goAwayLastStreamID = last
        debugData.withUnsafeBufferPointer { d in
            _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode, d.baseAddress, d.count)
        }
        // Requests that began arriving above `last` are refused now; the rest are refused as they begin.
        for id in streams.keys where id > last { refuse(streamID: id) }
        // Not `flush()`: this usually runs inside nghttp2's receive callbacks, which must not send.
        scheduleFlush()
        // Then a lingering close, not a plain one: a client slow to read (a loaded machine) may still be
        // sending requests it began before our GOAWAY, and closing with them unread resets the connection,
        // which can destroy the GOAWAY and the answers the client has not read yet.
        loop.schedule(after: Self.goAwayGrace) { [self] in stream?.finishOutputAndClose(linger: Self.goAwayLinger) }
    }

    /// How long a connection that sent GOAWAY waits for answers still owed, and then for the client to
    /// close, before it closes anyway.
    static let goAwayGrace: Duration = .seconds(2)

    /// How long the lingering close then keeps reading (and dropping) what the client still sends, waiting for
    /// it to close: it closes as soon as it has read every answer, so this only bounds a client that never does.
    static let goAwayLinger: Duration = .seconds(10)

    /// After our GOAWAY the client closes once it has every answer. Closing first, while requests it sent
    /// before reading the GOAWAY are still unread here, would make the kernel reset the connection, and
    /// the reset can destroy the GOAWAY and answers not yet read by the client, which then resends
    /// requests that were processed.
    override func sessionFinished() {
        if goAwayLastStreamID == nil { super.sessionFinished() }
    }

    private func refuse(streamID: Int32) {
        streams[streamID] = nil
        nghttp2_session_set_stream_user_data(session, streamID, nil)
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, UInt32(NGHTTP2_REFUSED_STREAM.rawValue))
        scheduleFlush()
    }

    /// Drops the TCP connection at once with a reset (fault injection).
    public func closeAbruptly() { stream?.closeAbruptly() }

    /// Stops reading from the peer: no more requests, no PING answers (fault injection: a hung server).
    public func stopReading() { stream?.pauseReading() }

    // MARK: frames

    override func beginHeaders(streamID: Int32) {
        if let last = goAwayLastStreamID, streamID > last { return refuse(streamID: streamID) }
        let s = HTTP2Stream(id: streamID)
        if fixedResponse == nil { s.headers.reserveCapacity(8) }
        streams[streamID] = s
        nghttp2_session_set_stream_user_data(session, streamID, Unmanaged.passUnretained(s).toOpaque())
    }

    override func frameReceived(type: UInt8, streamID: Int32, flags: UInt8, frame: UnsafePointer<nghttp2_frame>) {
        guard flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
              type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue),
              let s = streams[streamID] else { return }
        lastHandedStreamID = max(lastHandedStreamID, streamID)
        if let fixedResponse { return respondFixed(fixedResponse, to: s) }
        let request = HTTPRequest(method: s.method, target: s.path, headers: HTTPHeaders(s.headers), body: s.body, remoteAddress: remoteAddress)
        s.headers = []
        s.body = []
        delegate.handle(request, on: self, responder: HTTP2Responder(connection: self, streamID: streamID))
    }

    override func streamClosed(streamID: Int32, errorCode: UInt32) {
        streams[streamID] = nil
    }

    override func connectionClosed(error: IOError?) {
        streams.removeAll()
        responderLink.connection = nil
        delegate.connectionClosed(self)
    }

    private func respondFixed(_ fixed: FixedResponseBlock, to s: HTTP2Stream) {
        guard let session else { return }
        fixed.response.onRequest()
        let echoed = fixed.echoedName.isEmpty ? nil : (s.headers.first?.value ?? fixed.response.makeEchoedValue())
        s.headers = []
        let rc = withHeaderBlock { block in
            block.add(":status", fixed.status)
            for h in fixed.headers { block.add(h.name, h.value) }
            // Both are unique to this response: an HPACK entry would serve no other.
            if let echoed { block.add(fixed.echoedNameText, echoed, indexed: false) }
            for g in fixed.generated { block.add(g.name, g.makeValue(), indexed: false) }
            return block.withNV { nva, count in nghttp2_submit_response(session, s.id, nva, count, nil) }
        }
        if rc == 0 { scheduleFlush() }
    }

    func respond(streamID: Int32, _ response: HTTPResponse) {
        guard let session, let s = streams[streamID] else { return }
        let rc: Int32 = withHeaderBlock { block in
            block.add(":status", String(response.status))
            for h in response.headers.fields {
                block.add(h.name, h.value, lowercasingName: true, indexed: !uniqueResponseHeaders.contains(h.name))
            }
            return block.withNV { nva, count in
                if response.body.isEmpty {
                    return nghttp2_submit_response(session, streamID, nva, count, nil)
                }
                s.outbound = response.body
                var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: HTTP2Endpoint.bodyProvider)
                return nghttp2_submit_response(session, streamID, nva, count, &provider)
            }
        }
        if rc == 0 { scheduleFlush() }
    }
}

/// Answers one request. Sendable: call `respond` once, from any thread, now or later.
public struct HTTP2Responder: Sendable {
    private let link: ResponderLink
    private let loop: EventLoop
    private let streamID: Int32

    init(connection: HTTP2ServerConnection, streamID: Int32) {
        self.link = connection.responderLink
        self.loop = connection.loop
        self.streamID = streamID
    }

    public func respond(_ response: HTTPResponse) {
        let id = streamID
        if loop.inLoop {
            link.connection?.respond(streamID: id, response)
        } else {
            let link = link
            loop.execute { link.connection?.respond(streamID: id, response) }
        }
    }
}

/// How responders reach their connection: a strong reference the connection clears when it closes.
/// Not a weak reference: an object that is weakly referenced anywhere gets a side table, and from then on
/// every retain and release of it (several per request) takes the runtime's slow path.
/// Read and written only on the connection's loop.
final class ResponderLink: @unchecked Sendable {
    var connection: HTTP2ServerConnection?
}

/// An `HTTP2FixedResponse` as the connection uses it: names lowered and bytes taken once.
private struct FixedResponseBlock {
    let response: HTTP2FixedResponse
    let status: String
    let echoedName: [UInt8]
    let echoedNameText: String
    let headers: [(name: String, value: String)]
    let generated: [(name: String, makeValue: @Sendable () -> String)]

    init(_ response: HTTP2FixedResponse) {
        self.response = response
        status = String(response.status)
        echoedNameText = (response.echoedHeader ?? "").lowercased()
        echoedName = Array(echoedNameText.utf8)
        headers = response.headers.map { ($0.name.lowercased(), $0.value) }
        generated = response.generatedHeaders.map { ($0.name.lowercased(), $0.makeValue) }
    }
}
