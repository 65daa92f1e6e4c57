import Foundation
import HeraldIO
internal import CNGHTTP2

/// What client and server connections share: an nghttp2 session fed from a `StreamConnection`, with
/// its output gathered into one write per turn of the loop. Subclasses react to frames.
/// Everything runs on the stream's loop.
public class HTTP2Endpoint: ConnectionDelegate, @unchecked Sendable {
    let loop: EventLoop
    var stream: StreamConnection?
    var session: OpaquePointer?
    var streams: [Int32: HTTP2Stream] = [:]
    private var flushScheduled = false
    private var flushing = false
    private var sendBuffer: [UInt8] = []
    private var receivedHeaders = HeaderInterner()

    init(loop: EventLoop) { self.loop = loop }

    deinit { if let session { nghttp2_session_del(session) } }

    // MARK: hooks for subclasses

    func sessionReady() {}
    func beginHeaders(streamID: Int32) {}
    /// A complete frame arrived (after its headers/data callbacks).
    func frameReceived(type: UInt8, streamID: Int32, flags: UInt8, frame: UnsafePointer<nghttp2_frame>) {}
    func streamClosed(streamID: Int32, errorCode: UInt32) {}
    func connectionClosed(error: IOError?) {}

    // MARK: session setup

    func makeSession(server: Bool) {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
            HTTP2Endpoint.with(user) { me in
                if me.isClosed { return HTTP2Endpoint.stopProcessing }
                me.beginHeaders(streamID: frame!.pointee.hd.stream_id)
                return 0
            }
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { session, frame, name, namelen, value, valuelen, _, user in
            HTTP2Endpoint.with(user) { me in
                me.headerReceived(session, frame!.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: namelen),
                                  value: UnsafeBufferPointer(start: value, count: valuelen))
            }
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { session, _, streamID, data, len, user in
            HTTP2Endpoint.with(user) { me in
                if me.isClosed { return HTTP2Endpoint.stopProcessing }
                guard me.keepsBodies else { return 0 }
                HTTP2Endpoint.withStream(session, streamID) { s in s.body.append(contentsOf: UnsafeBufferPointer(start: data, count: len)) }
                return 0
            }
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            HTTP2Endpoint.with(user) { me in
                if me.isClosed { return HTTP2Endpoint.stopProcessing }
                let hd = frame!.pointee.hd
                me.frameReceived(type: hd.type, streamID: hd.stream_id, flags: hd.flags, frame: frame!)
                return 0
            }
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, code, user in
            HTTP2Endpoint.with(user) { me in
                if me.isClosed { return 0 }
                me.streamClosed(streamID: streamID, errorCode: code)
                return 0
            }
        }
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        // Closed streams are not kept for priority bookkeeping: APNs traffic never uses priorities.
        nghttp2_option_set_no_closed_streams(option, 1)
        if !server {
            // A client reads a response's :status and the few headers it asked to keep, and checks those
            // itself; nghttp2's HTTP messaging rules would validate every byte of every response field first
            // (about 4 % of the client's event loop). The server keeps them: it must reject malformed requests.
            nghttp2_option_set_no_http_messaging(option, 1)
        }
        var s: OpaquePointer?
        let me = Unmanaged.passUnretained(self).toOpaque()
        if server {
            nghttp2_session_server_new2(&s, callbacks, me, option)
        } else {
            nghttp2_session_client_new2(&s, callbacks, me, option)
        }
        session = s
    }

    static let statusName = Array(":status".utf8)
    static let methodName = Array(":method".utf8)
    static let pathName = Array(":path".utf8)

    /// Set when the socket is gone. A handler may close the connection (a fault, GOAWAY, an error) while
    /// nghttp2 is still inside `mem_recv` with more frames of the same read; from then on callbacks only
    /// tell nghttp2 to stop, since the stream objects its user data points to have been released.
    private(set) var isClosed = false
    /// The peer broke the protocol; whatever else it sent is ignored.
    private(set) var receivedProtocolError = false
    static let stopProcessing = Int32(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)

    /// nghttp2's header callback: keeps `:status` (and a server's `:method`, `:path`) and the fields asked for.
    private func headerReceived(_ session: OpaquePointer?, _ streamID: Int32, name nameBytes: UnsafeBufferPointer<UInt8>,
                                value valueBytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        if isClosed { return HTTP2Endpoint.stopProcessing }
        let pseudo = nameBytes.count > 0 && nameBytes[0] == UInt8(ascii: ":")
        // A field nobody reads is dropped before its stream is even looked up.
        guard pseudo || keepsHeader(nameBytes) else { return 0 }
        HTTP2Endpoint.withStream(session, streamID) { s in
            if pseudo {
                if HeaderInterner.equal(HTTP2Endpoint.statusName, nameBytes) {
                    s.status = valueBytes.reduce(0) { $0 * 10 + Int($1 &- 48) }
                } else if !keepsHeader(nameBytes) {
                    return
                } else if HeaderInterner.equal(HTTP2Endpoint.methodName, nameBytes) {
                    s.method = receivedHeaders.field(name: nameBytes, value: valueBytes).value
                } else if HeaderInterner.equal(HTTP2Endpoint.pathName, nameBytes) {
                    s.path = receivedHeaders.field(name: nameBytes, value: valueBytes).value
                }
                return
            }
            s.headers.append(receivedHeaders.field(name: nameBytes, value: valueBytes))
        }
        return 0
    }

    /// The stream's object through nghttp2's stream user data (set when the stream starts), which saves
    /// a dictionary lookup per header and per DATA chunk. `streams` (a client: its open list) keeps the object alive.
    func streamObject(_ session: OpaquePointer?, _ id: Int32) -> HTTP2Stream? {
        guard let raw = nghttp2_session_get_stream_user_data(session, id) else { return nil }
        return Unmanaged<HTTP2Stream>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Whether DATA is collected into `HTTP2Stream.body`; a server answering without reading can drop it.
    var keepsBodies = true

    /// Whether a received header is worth turning into strings. Everything by default; a client can
    /// narrow it to the few response headers it reads.
    func keepsHeader(_ name: UnsafeBufferPointer<UInt8>) -> Bool { true }

    static func from(_ user: UnsafeMutableRawPointer?) -> HTTP2Endpoint {
        Unmanaged<HTTP2Endpoint>.fromOpaque(user!).takeUnretainedValue()
    }

    /// Runs `body` with the endpoint behind nghttp2's session user data, without retaining it: nghttp2 calls
    /// back only from inside the endpoint's own calls into the session, so the endpoint outlives the callback.
    /// A retain and a release per callback were ~10 pairs per request on a client's event loop (a callback
    /// per response header).
    @inline(__always)
    static func with<T>(_ user: UnsafeMutableRawPointer?, _ body: (HTTP2Endpoint) -> T) -> T {
        Unmanaged<HTTP2Endpoint>.fromOpaque(user!)._withUnsafeGuaranteedRef(body)
    }

    /// Runs `body` with the stream object behind nghttp2's stream user data, unretained: `streams` (a client: its open list) keeps it
    /// alive while nghttp2 knows the stream. Nil when the stream has no object.
    @inline(__always)
    static func withStream<T>(_ session: OpaquePointer?, _ id: Int32, _ body: (HTTP2Stream) -> T) -> T? {
        guard let raw = nghttp2_session_get_stream_user_data(session, id) else { return nil }
        return Unmanaged<HTTP2Stream>.fromOpaque(raw)._withUnsafeGuaranteedRef(body)
    }

    func submitSettings(_ entries: [(id: Int32, value: UInt32)]) {
        guard let session else { return }
        let iv = entries.map { nghttp2_settings_entry(settings_id: $0.id, value: $0.value) }
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), iv, iv.count)
        scheduleFlush()
    }

    /// Sends a DATA body for `stream` from its `outbound` buffer.
    static let bodyProvider: nghttp2_data_source_read_callback = { session, streamID, buf, length, flags, _, _ in
        guard let raw = nghttp2_session_get_stream_user_data(session, streamID) else {
            flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
            return 0
        }
        let s = Unmanaged<HTTP2Stream>.fromOpaque(raw).takeUnretainedValue()
        let n = min(length, s.outbound.count - s.outboundOffset)
        s.outbound.withUnsafeBytes { src in
            UnsafeMutableRawPointer(buf!).copyMemory(from: src.baseAddress! + s.outboundOffset, byteCount: n)
        }
        s.outboundOffset += n
        if s.outboundOffset == s.outbound.count { flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
        return n
    }

    /// Builds a header block in the connection's reused buffers and hands it to `body` (see `HeaderBlock`).
    func withHeaderBlock<T>(_ body: (inout HeaderBlock) -> T) -> T {
        var block = HeaderBlock()
        swap(&block, &headerBlock)
        defer { swap(&block, &headerBlock) }
        block.reset()
        return body(&block)
    }

    private var headerBlock = HeaderBlock()

    /// The bytes held by this connection's two HPACK tables: the one it encodes its header blocks with and
    /// the one it decodes the peer's with. Read on the connection's loop, which owns the session.
    func hpackTableSizes() async throws -> (encoding: Int, decoding: Int) {
        try await loop.submit { [self] in
            guard let session else { return (0, 0) }
            return (nghttp2_session_get_hd_deflate_dynamic_table_size(session), nghttp2_session_get_hd_inflate_dynamic_table_size(session))
        }
    }

    // MARK: I/O

    /// Coalesces output: whatever frames are queued during this turn go out in one write.
    func scheduleFlush() {
        guard !flushScheduled else { return }
        flushScheduled = true
        // Cleared by the queued flush only: a flush run early (a client writing part-way through a read)
        // leaves this one queued, and must not let another be queued beside it.
        loop.execute { [self] in
            flushScheduled = false
            flush()
        }
    }

    func flush() {
        guard let session, let stream, !flushing else { return }
        // The buffer is gathered in a local: appending to the stored array paid a dynamic exclusivity check
        // per frame (two frames per request). A flush reached from a callback inside `mem_send` (a stream
        // closed while sending) returns at once; this loop collects whatever it queued.
        flushing = true
        var buffer: [UInt8] = []
        swap(&buffer, &sendBuffer)
        var failed = false
        while true {
            var data: UnsafePointer<UInt8>?
            let n = nghttp2_session_mem_send(session, &data)
            if n < 0 { failed = true; break }
            if n == 0 { break }
            buffer.append(contentsOf: UnsafeBufferPointer(start: data, count: n))
        }
        if !failed && !buffer.isEmpty { buffer.withUnsafeBytes { stream.write($0) } }
        buffer.removeAll(keepingCapacity: true)
        swap(&buffer, &sendBuffer)
        flushing = false
        if failed { return stream.closeAbruptly() }
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            sessionFinished()
        }
    }

    /// nghttp2 has nothing more to read or write (GOAWAY exchanged, no stream left).
    func sessionFinished() { stream?.close() }

    // MARK: ConnectionDelegate

    public func streamDidBecomeReady(_ stream: StreamConnection) {
        self.stream = stream
        sessionReady()
    }

    public func stream(_ stream: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        guard let session, !receivedProtocolError else { return }
        let rc = nghttp2_session_mem_recv(session, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count)
        if rc < 0 {
            // A protocol error: nghttp2 has queued a GOAWAY; send it and close.
            receivedProtocolError = true
            flush()
            stream.close()
            return
        }
        // Several reads can arrive in one turn of the loop (TLS records, a read cap): answer them all in
        // one write at the end of the turn rather than one write per read.
        scheduleFlush()
    }

    public func streamDidClose(_ stream: StreamConnection, error: IOError?) {
        isClosed = true
        connectionClosed(error: error)
        self.stream = nil
    }
}
