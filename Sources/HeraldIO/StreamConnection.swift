import Foundation
internal import CHeraldShims

/// A TCP connection, optionally through an HTTP CONNECT proxy and optionally TLS, driven by one event
/// loop. All methods must be called on that loop; the delegate is called there too.
public final class StreamConnection: EventHandler, @unchecked Sendable {
    private enum State { case connecting, proxyHandshake, tlsHandshake, open, closed }

    public let loop: EventLoop
    public let remoteAddress: String
    private let fd: Int32
    private var state: State
    private var delegate: ConnectionDelegate?
    private var tls: TLSSession?
    private let tlsContext: TLSContext?
    private let serverName: String?
    private var proxyTarget: (host: String, port: Int, credentials: String?)?
    private var proxyReply: [UInt8] = []
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var writableArmed = false
    private var readPaused = false
    /// The peer sent EOF (it may still read what we write).
    private var inputEnded = false
    /// `finishOutputAndClose`: write what is queued, then half-close and discard input until the peer closes.
    private var lingering = false
    private var discarded = 0
    /// A connection we dialled: its input is the answers to what we sent, so it is read to the end even
    /// after a write fails (see `outputFailed`).
    private var dialled = false
    /// The local port of a connection dialled to a loopback address (`LoopbackPeers`).
    private var loopbackPort: Int?
    /// A write failed: nothing more can reach the peer, so output is dropped.
    private var outputBroken = false
    private var timeoutTimer: TimerID?
    private static let readSize = 64 * 1024
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readSize, alignment: 16)

    /// The protocol chosen by ALPN once TLS is up (`h2`), nil without TLS or ALPN.
    public private(set) var negotiatedProtocol: String?
    /// The DER certificate the peer presented during the TLS handshake, if any.
    public private(set) var peerCertificateDER: [UInt8]?
    public var isTLS: Bool { tlsContext != nil }

    private init(loop: EventLoop, fd: Int32, remote: String, state: State, tls: TLSContext?, serverName: String?, delegate: ConnectionDelegate) {
        self.loop = loop
        self.fd = fd
        self.remoteAddress = remote
        self.state = state
        self.tlsContext = tls
        self.serverName = serverName
        self.delegate = delegate
    }

    deinit {
        readBuffer.deallocate()
        if state != .closed { Glibc.close(fd) }
    }

    /// Opens a connection to `host:port`. DNS is resolved afresh on a background thread, then the
    /// connection continues on `loop`; the delegate learns the outcome (ready or closed with an error).
    public static func connect(host: String, port: Int, tls: TLSContext?, serverName: String? = nil,
                               proxy: ProxyConfiguration? = nil, timeout: Duration = .seconds(10),
                               loop: EventLoop, delegate: ConnectionDelegate & Sendable) {
        let dialHost = proxy?.host ?? host
        let dialPort = proxy?.port ?? port
        DispatchQueue.global().async {
            let resolved = Result { try SocketAddress.resolve(host: dialHost, port: dialPort) }
            loop.execute {
                var lastError = IOError.resolve(host: dialHost, message: "no address")
                switch resolved {
                case let .failure(error): lastError = error as? IOError ?? lastError
                case let .success(addresses):
                    for address in addresses {
                        do {
                            let fd = try Socket.makeStream(family: address.family)
                            Socket.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY)
                            // A dial to this host is recorded before it connects, so a listener of this
                            // process that accepts it at once already finds its loop (`LoopbackPeers`).
                            let loopbackPort = address.isIPv4Loopback ? Socket.bindIPv4LoopbackSource(fd) : nil
                            if let port = loopbackPort { LoopbackPeers.record(port: port, loop: loop) }
                            let done: Bool
                            do { done = try Socket.connect(fd, to: address) } catch {
                                if let port = loopbackPort { LoopbackPeers.forget(port: port) }
                                Glibc.close(fd)
                                throw error
                            }
                            let conn = StreamConnection(loop: loop, fd: fd, remote: address.description, state: .connecting,
                                                        tls: tls, serverName: serverName ?? host, delegate: delegate)
                            if let proxy { conn.proxyTarget = (host, port, proxy.credentials) }
                            conn.dialled = true
                            conn.loopbackPort = loopbackPort
                            try loop.register(fd: fd, handler: conn, readable: true, writable: !done)
                            conn.writableArmed = !done
                            conn.timeoutTimer = loop.schedule(after: timeout) { [weak conn] in
                                conn?.fail(.timeout("connecting to \(host):\(port) took longer than \(timeout)"))
                            }
                            if done { conn.connected() }
                            return
                        } catch let error as IOError {
                            lastError = error
                        } catch {}
                    }
                }
                let orphan = StreamConnection(loop: loop, fd: -1, remote: "\(host):\(port)", state: .closed, tls: nil, serverName: nil, delegate: delegate)
                delegate.streamDidClose(orphan, error: lastError)
            }
        }
    }

    /// Wraps an accepted socket. Call on `loop`. When it throws, the caller still owns `fd` and closes it.
    /// A TLS handshake that has not finished within `handshakeTimeout` closes the connection, so clients
    /// that connect and stay silent cannot hold a server's connection slots.
    public static func accepted(fd: Int32, remote: String, tls: TLSContext?, loop: EventLoop, delegate: ConnectionDelegate,
                                handshakeTimeout: Duration = .seconds(10)) throws -> StreamConnection {
        let conn = StreamConnection(loop: loop, fd: fd, remote: remote, state: tls == nil ? .open : .tlsHandshake,
                                    tls: tls, serverName: nil, delegate: delegate)
        do {
            try conn.start(handshakeTimeout: handshakeTimeout)
        } catch {
            conn.state = .closed   // the fd stays the caller's: closing it twice could close another's
            throw error
        }
        return conn
    }

    private func start(handshakeTimeout: Duration) throws {
        let conn = self
        Socket.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY)
        if let tls = tlsContext {
            conn.tls = try TLSSession(context: tls, fd: fd, serverName: nil)
            conn.timeoutTimer = loop.schedule(after: handshakeTimeout) { [weak conn] in
                guard let conn, conn.state == .tlsHandshake else { return }
                conn.fail(.timeout("the TLS handshake took longer than \(handshakeTimeout)"))
            }
            if let delay = tls.handshakeDelay?(), delay > .zero {
                // Registered without interest until the delay is over: the handshake simply waits.
                try loop.register(fd: fd, handler: conn, readable: false)
                loop.schedule(after: delay) { [weak conn] in
                    guard let conn, conn.state == .tlsHandshake else { return }
                    conn.loop.modify(fd: conn.fd, readable: true, writable: false)
                    conn.continueHandshake()
                }
                return
            }
            try loop.register(fd: fd, handler: conn)
            conn.continueHandshake()
        } else {
            try loop.register(fd: fd, handler: conn)
            delegate?.streamDidBecomeReady(conn)
        }
    }

    // MARK: writing

    /// Queues bytes and writes as much as the socket takes now.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard state == .open || state == .proxyHandshake, !lingering, !outputBroken else { return }
        output.append(contentsOf: bytes)
        if !writableArmed { flush() }
    }

    public func write(_ bytes: [UInt8]) { bytes.withUnsafeBytes { write($0) } }

    /// Bytes queued but not yet taken by the kernel.
    public var pendingOutput: Int { output.count - outputOffset }

    /// When the kernel last took some of the queued bytes (`MonotonicTime`): a write timeout measures
    /// from here, so a slow reader that keeps reading is not mistaken for one that stopped.
    public private(set) var lastWriteProgress = MonotonicTime.now

    /// Stops reading (backpressure) until `resumeReading`.
    public func pauseReading() {
        guard !readPaused, state != .closed else { return }
        readPaused = true
        loop.modify(fd: fd, readable: wantsInput, writable: writableArmed)
    }

    public func resumeReading() {
        guard readPaused, state != .closed else { return }
        readPaused = false
        loop.modify(fd: fd, readable: wantsInput, writable: writableArmed)
        onReadable()
    }

    /// The socket is watched for input unless reading is paused or the peer's input has ended; a lingering
    /// close reads (and discards) whatever comes until the peer closes.
    private var wantsInput: Bool { !inputEnded && (lingering || !readPaused) }

    /// The server's way to end a connection without losing its last response (RFC 9112 §9.6): write what is
    /// queued (the client has `drainTimeout` without taking any of it before the connection is dropped),
    /// then close our side for writing and read and drop what the client still sends, until the client
    /// closes, `linger` passes or `maxDiscard` bytes came. Closing with unread input would make the kernel
    /// reset the connection, and a client can then lose the response before reading it.
    public func finishOutputAndClose(drainTimeout: Duration = .seconds(30), linger: Duration = .seconds(2), maxDiscard: Int = 1 << 20) {
        guard state == .open, !lingering else { return close() }
        lingering = true
        lingerTime = linger
        discarded = -maxDiscard
        if let t = timeoutTimer { loop.cancelTimer(t) }
        timeoutTimer = nil
        loop.modify(fd: fd, readable: wantsInput, writable: writableArmed)
        if pendingOutput == 0 { return halfCloseAfterOutput() }
        watchDrain(drainTimeout)
        flush()
    }

    private var lingerTime: Duration = .seconds(2)

    /// Drops the connection when queued output has gone untaken for `timeout`.
    private func watchDrain(_ timeout: Duration) {
        timeoutTimer = loop.schedule(after: timeout) { [weak self] in
            guard let self, self.state == .open, self.pendingOutput > 0 else { return }
            let idle = MonotonicTime.now &- self.lastWriteProgress
            if idle >= timeout.nanosecondsValue { return self.closeAbruptly() }
            self.watchDrain(.nanoseconds(Int64(timeout.nanosecondsValue - idle)))
        }
    }

    private func halfCloseAfterOutput() {
        tls?.shutdown()
        if inputEnded { return finish(error: nil) }
        Glibc.shutdown(fd, Int32(SHUT_WR))
        if let t = timeoutTimer { loop.cancelTimer(t) }
        timeoutTimer = loop.schedule(after: lingerTime) { [weak self] in self?.finish(error: nil) }
    }

    /// Closes after flushing what is queued (best effort).
    public func close() {
        guard state != .closed else { return }
        if state == .open { flush() }
        tls?.shutdown()
        finish(error: nil)
    }

    /// Closes at once with a TCP reset (fault injection, or a peer that must not linger).
    public func closeAbruptly() {
        guard state != .closed else { return }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        finish(error: nil)
    }

    // MARK: events

    public func handleEvent(readable: Bool, writable: Bool, hangup: Bool) {
        switch state {
        case .connecting:
            if writable || hangup { connected() }
        case .proxyHandshake:
            if writable { flush() }
            if readable || hangup { readProxyReply() }
        case .tlsHandshake:
            continueHandshake()
        case .open:
            if writable { flush() }
            if lingering {
                if readable || hangup { discardInput() }
            } else if hangup && !readable && (readPaused || inputEnded) {
                // Input is not watched, so this is HUP or ERR, not a half-close: nothing we write can arrive.
                if state == .open { finish(error: .connectionClosed) }
            } else if readable || hangup {
                onReadable()
            }
        case .closed:
            break
        }
    }

    private func connected() {
        let err = Socket.pendingError(fd)
        guard err == 0 else { return fail(.system("connect to \(remoteAddress)", err)) }
        if let target = proxyTarget {
            state = .proxyHandshake
            var request = "CONNECT \(target.host):\(target.port) HTTP/1.1\r\nHost: \(target.host):\(target.port)\r\n"
            if let creds = target.credentials {
                request += "Proxy-Authorization: Basic \(Data(creds.utf8).base64EncodedString())\r\n"
            }
            request += "\r\n"
            setWritable(false)
            write(Array(request.utf8))
            return
        }
        startTLSOrOpen()
    }

    private func readProxyReply() {
        let n = Glibc.read(fd, readBuffer.baseAddress, 4096)
        if n <= 0 {
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            return fail(.proxy("the proxy closed the connection before answering CONNECT"))
        }
        proxyReply += UnsafeRawBufferPointer(start: readBuffer.baseAddress, count: n)
        guard let end = proxyReply.firstRange(of: Array("\r\n\r\n".utf8)) else {
            if proxyReply.count > 16 * 1024 { fail(.proxy("the proxy's answer to CONNECT is too long")) }
            return
        }
        let head = String(decoding: proxyReply[..<end.lowerBound], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n").first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[1] == "200" else {
            return fail(.proxy("the proxy refused CONNECT: \(statusLine)"))
        }
        // Anything after the header belongs to the tunnel; a CONNECT reply is never followed by data
        // before we speak first, so it is safe to drop the rest.
        proxyReply = []
        startTLSOrOpen()
    }

    private func startTLSOrOpen() {
        guard let ctx = tlsContext else { return becomeOpen() }
        do {
            tls = try TLSSession(context: ctx, fd: fd, serverName: serverName)
        } catch let e as IOError {
            return fail(e)
        } catch { return fail(.tls("\(error)")) }
        state = .tlsHandshake
        continueHandshake()
    }

    private func continueHandshake() {
        guard let tls else { return }
        switch tls.handshake() {
        case .done:
            negotiatedProtocol = tls.alpn
            peerCertificateDER = tls.peerCertificateDER
            becomeOpen()
        case .wantRead: setWritable(false)
        case .wantWrite: setWritable(true)
        case .closed: fail(.tls("the peer closed the connection during the TLS handshake"))
        case let .failed(message): fail(.tls(message))
        }
    }

    private func becomeOpen() {
        if let t = timeoutTimer { loop.cancelTimer(t); timeoutTimer = nil }
        state = .open
        setWritable(pendingOutput > 0)
        delegate?.streamDidBecomeReady(self)
        if state == .open && !readPaused { onReadable() }
    }

    /// Reads what has arrived and hands it to the delegate. `untilEnd` reads until nothing more is there
    /// (the end of a connection whose writes failed); otherwise a turn is bounded, so that one busy
    /// connection cannot starve the others on this loop.
    private func onReadable(untilEnd: Bool = false) {
        var turns = 0
        while untilEnd || turns < 16 {
            turns += 1
            guard state == .open, !readPaused, !inputEnded, !lingering else { return }
            let n: Int
            if let tls {
                switch tls.read(into: readBuffer) {
                case let .done(count): n = count
                case .wantRead: return
                case .wantWrite: setWritable(true); return
                case .closed: return endOfInput()
                case let .failed(message): return fail(.tls(message))
                }
            } else {
                n = Glibc.read(fd, readBuffer.baseAddress, readBuffer.count)
                if n == 0 { return endOfInput() }
                if n < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
                    return errno == ECONNRESET ? finish(error: .connectionClosed) : fail(.system("read", errno))
                }
            }
            delegate?.stream(self, didRead: UnsafeRawBufferPointer(start: readBuffer.baseAddress, count: n))
            if n < readBuffer.count && tls == nil && !untilEnd { return }
        }
        // TLS may hold decrypted bytes that epoll cannot see: come back for them.
        if tls != nil && !untilEnd { loop.execute { self.onReadable() } }
    }

    /// The peer will send nothing more. Its delegate decides whether to answer first; the default closes.
    private func endOfInput() {
        guard !inputEnded, state == .open else { return }
        inputEnded = true
        loop.modify(fd: fd, readable: false, writable: writableArmed)
        guard let delegate else { return finish(error: nil) }
        delegate.streamDidReachEndOfInput(self)
    }

    private func discardInput() {
        for _ in 0..<16 {
            guard state == .open, !inputEnded else { return }
            let n = Glibc.read(fd, readBuffer.baseAddress, readBuffer.count)
            if n == 0 {
                // The client is done sending; what is still queued for it goes out first.
                guard pendingOutput == 0 else {
                    inputEnded = true
                    return loop.modify(fd: fd, readable: false, writable: writableArmed)
                }
                return finish(error: nil)
            }
            if n < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
                return finish(error: nil)
            }
            discarded += n
            if discarded >= 0 { return finish(error: nil) }
        }
    }

    private func flush() {
        guard !outputBroken else { return }
        while outputOffset < output.count {
            let result: Int = output.withUnsafeBytes { raw in
                let slice = UnsafeRawBufferPointer(rebasing: raw[outputOffset...])
                if let tls {
                    switch tls.write(slice) {
                    case let .done(n): return n
                    case .wantRead, .wantWrite: return 0
                    case .closed: return -2
                    case .failed: return -3
                    }
                }
                let n = Glibc.send(fd, slice.baseAddress, slice.count, Int32(MSG_NOSIGNAL))
                if n < 0 { return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? 0 : -2 }
                return n
            }
            if result < 0 { return outputFailed() }
            if result == 0 { return setWritable(true) }
            outputOffset += result
            lastWriteProgress = MonotonicTime.now
        }
        output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
        outputOffset = 0
        if lingering {
            setWritable(false)
            return halfCloseAfterOutput()
        }
        if writableArmed {
            setWritable(false)
            if state == .open { delegate?.streamDidDrain(self) }
        }
    }

    /// A write failed: the peer reset the connection or went away. On a connection we dialled, what the
    /// peer sent before that may still sit unread in the kernel, which hands it over before the error (an
    /// HTTP/2 server's GOAWAY and its last answers: closing without reading them would make a client
    /// send again requests the server took). So input is read to its end first, on the next turn of the
    /// loop (this can run inside the delegate's own read), and then the connection closes. A server does
    /// not do this: reading more requests that can no longer be answered would only do work for nothing.
    private func outputFailed() {
        output.removeAll()
        outputOffset = 0
        guard dialled, state == .open, !readPaused else { return finish(error: .connectionClosed) }
        outputBroken = true
        setWritable(false)
        loop.execute { [self] in
            onReadable(untilEnd: true)
            finish(error: .connectionClosed)
        }
    }

    private func setWritable(_ on: Bool) {
        guard state != .closed, on != writableArmed else { return }
        writableArmed = on
        loop.modify(fd: fd, readable: wantsInput, writable: on)
    }

    private func fail(_ error: IOError) { finish(error: error) }

    private func finish(error: IOError?) {
        guard state != .closed else { return }
        state = .closed
        if let t = timeoutTimer { loop.cancelTimer(t) }
        loop.unregister(fd: fd)
        Glibc.close(fd)
        if let port = loopbackPort { LoopbackPeers.forget(port: port) }
        let d = delegate
        delegate = nil
        d?.streamDidClose(self, error: error)
    }
}
