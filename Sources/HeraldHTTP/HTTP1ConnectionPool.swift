import Foundation
import Synchronization
import HeraldIO

/// Keeps HTTP/1.1 connections open between requests to the same origin, so a client that POSTs to one
/// receiver again and again (the webhook sender: a batch of events each time) opens, and over TLS handshakes,
/// one connection instead of one per request.
///
/// A connection goes back to the pool only after a complete response that allows it (HTTP/1.1, no
/// `Connection: close`, a body framed by length or chunks). An idle one is closed after `idleTimeout`, kept
/// below the 5 s that common servers (Node.js, Apache) wait before closing theirs, so the pool rarely hands
/// out a connection its peer is closing. When that happens anyway (the peer closed a reused connection before
/// any byte of an answer, or answered it "408 Request Timeout") the request is sent once more on a new
/// connection: the peer may then see it twice, which at-least-once senders such as webhooks allow.
public final class HTTP1ConnectionPool: Sendable {
    public let idleTimeout: Duration
    public let maxIdlePerOrigin: Int
    private let idle = Mutex<[Origin: [HTTP1PooledConnection]]>([:])
    private let counts = Mutex((opened: 0, reused: 0))

    public init(idleTimeout: Duration = .seconds(4), maxIdlePerOrigin: Int = 8) {
        self.idleTimeout = idleTimeout
        self.maxIdlePerOrigin = maxIdlePerOrigin
    }

    /// Connections opened, and requests sent on a connection that had already carried one.
    public var opened: Int { counts.withLock { $0.opened } }
    public var reused: Int { counts.withLock { $0.reused } }
    /// Origins with an idle connection now.
    var idleOrigins: Int { idle.withLock { $0.count } }

    /// Sends `request` on an idle connection to its origin, or on a new one.
    func exchange(_ request: HTTPRequest, host: String, port: Int, tls: TLSContext?, timeout: Duration,
                  onBody: @escaping @Sendable ([UInt8]) -> Void) async throws -> ResponseHead {
        let origin = Origin(host: host, port: port, tls: tls.map(ObjectIdentifier.init))
        let bytes = HTTP1Client.requestBytes(request, hostHeader: "\(host):\(port)", keepAlive: true)
        if let kept = take(origin) {
            counts.withLock { $0.reused += 1 }
            do {
                return try await kept.send(bytes, method: request.method, onBody: onBody)
            } catch HTTP1PooledConnection.Stale.closedBeforeAnswer {
                counts.withLock { $0.reused -= 1 }   // not reused after all: sent again below
            }
            try Task.checkCancellation()
        }
        counts.withLock { $0.opened += 1 }
        let fresh = HTTP1PooledConnection(origin: origin, loop: EventLoopGroup.shared.next(), pool: self)
        return try await fresh.send(bytes, method: request.method, onBody: onBody, connecting: (host, port, tls, timeout))
    }

    /// Closes every idle connection (a sender that stops).
    public func closeIdle() {
        let all = idle.withLock { d -> [HTTP1PooledConnection] in defer { d = [:] }; return d.values.flatMap { $0 } }
        for c in all { c.loop.execute { c.close() } }
    }

    /// Where a connection goes: host, port, and the TLS context it was made with (nil: plain HTTP), so a
    /// connection is never reused under other trust settings than its own.
    struct Origin: Hashable, Sendable {
        let host: String
        let port: Int
        let tls: ObjectIdentifier?
    }

    /// The most recently used idle connection: the least likely to have been closed by its peer.
    private func take(_ origin: Origin) -> HTTP1PooledConnection? {
        idle.withLock { d in
            defer { if d[origin]?.isEmpty == true { d[origin] = nil } }
            return d[origin]?.popLast()
        }
    }

    /// Takes back a connection after a response that allows another request. False when the origin has
    /// `maxIdlePerOrigin` idle already: the caller closes it.
    func put(_ c: HTTP1PooledConnection) -> Bool {
        idle.withLock { d in
            guard d[c.origin, default: []].count < maxIdlePerOrigin else { return false }
            d[c.origin, default: []].append(c)
            return true
        }
    }

    /// Removes `c` if it is idle here; true if it was (the caller closes it). A connection taken meanwhile is
    /// its new user's.
    func removeIfIdle(_ c: HTTP1PooledConnection) -> Bool {
        idle.withLock { d in
            guard let i = d[c.origin]?.firstIndex(where: { $0 === c }) else { return false }
            d[c.origin]?.remove(at: i)
            if d[c.origin]?.isEmpty == true { d[c.origin] = nil }   // origins come and go with webhooks' URLs
            return true
        }
    }
}

/// One connection of an `HTTP1ConnectionPool`: carries one request at a time, then waits in the pool. Confined
/// to its loop, except `send`, which hops there.
final class HTTP1PooledConnection: ConnectionDelegate, @unchecked Sendable {
    /// A reused connection was closed by its peer before any byte of the answer, or answered "408 Request
    /// Timeout": send the request again on a new one.
    enum Stale: Error { case closedBeforeAnswer }

    private struct Exchange {
        let id: Int
        let request: [UInt8]
        var reader: HTTP1ResponseReader
        let onBody: @Sendable ([UInt8]) -> Void
        let continuation: CheckedContinuation<ResponseHead, Error>
        var answered = false
    }

    let origin: HTTP1ConnectionPool.Origin
    let loop: EventLoop
    private weak var pool: HTTP1ConnectionPool?
    private var stream: StreamConnection?
    private var closed = false
    private var exchange: Exchange?
    private var exchanges = 0
    private var idleTimer: TimerID?

    init(origin: HTTP1ConnectionPool.Origin, loop: EventLoop, pool: HTTP1ConnectionPool) {
        self.origin = origin
        self.loop = loop
        self.pool = pool
    }

    /// Sends `request` and returns the answer's head once the whole answer is read (the body goes to
    /// `onBody`). `connecting` opens the connection first. Cancelling the task closes the connection.
    func send(_ request: [UInt8], method: String, onBody: @escaping @Sendable ([UInt8]) -> Void,
              connecting: (host: String, port: Int, tls: TLSContext?, timeout: Duration)? = nil) async throws -> ResponseHead {
        // This request's exchange number once it started (0 before), and whether the task was cancelled: the
        // cancellation handler can run before the request reaches the loop (a task cancelled already), and then
        // the request must not start at all.
        let state = Mutex((id: 0, cancelled: false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (cont: CheckedContinuation<ResponseHead, Error>) in
                loop.execute { [self] in
                    let cancelled = state.withLock { s -> Bool in
                        if !s.cancelled { s.id = exchanges + 1 }
                        return s.cancelled
                    }
                    if cancelled {
                        // Nothing was sent. A kept connection goes back to the pool (its idle timer still runs);
                        // a new one was never opened.
                        if connecting == nil && !park() { close() }
                        return cont.resume(throwing: CancellationError())
                    }
                    exchanges += 1
                    start(Exchange(id: exchanges, request: request, reader: HTTP1ResponseReader(method: method), onBody: onBody, continuation: cont))
                    if let c = connecting {
                        StreamConnection.connect(host: c.host, port: c.port, tls: c.tls, timeout: c.timeout, loop: loop, delegate: self)
                    }
                }
            }
        } onCancel: {
            let started = state.withLock { s -> Int in s.cancelled = true; return s.id }
            guard started > 0 else { return }
            loop.execute { [self] in
                guard let e = exchange, e.id == started else { return }
                finish(throwing: CancellationError())
            }
        }
    }

    private func start(_ e: Exchange) {
        if let idleTimer { loop.cancelTimer(idleTimer); self.idleTimer = nil }
        exchange = e
        if closed { return finish(throwing: exchanges > 1 ? Stale.closedBeforeAnswer : IOError.connectionClosed) }
        stream?.write(e.request)
    }

    func streamDidBecomeReady(_ stream: StreamConnection) {
        self.stream = stream
        // Closed while connecting (its request was cancelled): nobody will use it.
        if closed { return stream.close() }
        if let e = exchange { stream.write(e.request) }
    }

    func stream(_ stream: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        guard var e = exchange else {
            // Bytes nobody asked for (a server's "408 Request Timeout" before it closes): not reusable. If a
            // request has just taken the connection, it finds it closed and goes on a new one.
            _ = pool?.removeIfIdle(self)
            return close()
        }
        e.answered = true
        do {
            try e.reader.read(bytes, onBody: e.onBody)
        } catch {
            exchange = e
            return finish(throwing: error)
        }
        exchange = e
        if e.reader.isComplete { finish() }
    }

    func streamDidReachEndOfInput(_ stream: StreamConnection) { stream.close() }

    func streamDidClose(_ stream: StreamConnection, error: IOError?) {
        closed = true
        _ = pool?.removeIfIdle(self)
        guard var e = exchange else { return }
        guard e.answered else {
            return finish(throwing: exchanges > 1 ? Stale.closedBeforeAnswer : error ?? IOError.connectionClosed)
        }
        do {
            try e.reader.endOfStream()   // a body that runs to the end of the connection ends here
            exchange = e
            finish()
        } catch {
            finish(throwing: error)
        }
    }

    /// Ends the current exchange: with its answer, the connection back in the pool if the answer allows; or
    /// with `error`, the connection closed.
    ///
    /// A "408 Request Timeout" on a reused connection is the peer giving up on it while idle, sent before our
    /// request reached it (a peer that had read the request would answer it): like a close before any answer,
    /// the request goes again on a new connection. And a connection whose request was not all written when its
    /// answer came (a peer that answers early, say a 413 before reading the body) is not reused: the rest of
    /// the body would reach the peer ahead of the next request.
    private func finish(throwing error: Error? = nil) {
        guard let e = exchange else { return }
        exchange = nil
        if let error {
            close()
            return e.continuation.resume(throwing: error)
        }
        if e.id > 1 && e.reader.head?.status == 408 {
            close()
            return e.continuation.resume(throwing: Stale.closedBeforeAnswer)
        }
        let written = (stream?.pendingOutput ?? 0) == 0
        if !(e.reader.keepAlive && written && park()) { close() }
        if let head = e.reader.head {
            e.continuation.resume(returning: head)
        } else {
            e.continuation.resume(throwing: IOError.connectionClosed)
        }
    }

    /// Back to the pool, idle for at most `idleTimeout` from now. False when it is closed or the pool has no
    /// room for it: the caller closes it.
    private func park() -> Bool {
        guard !closed, let pool, pool.put(self) else { return false }
        if let idleTimer { loop.cancelTimer(idleTimer) }   // one that already fired is no longer there
        idleTimer = loop.schedule(after: pool.idleTimeout) { [weak self] in
            guard let self, self.pool?.removeIfIdle(self) ?? true else { return }
            self.close()
        }
        return true
    }

    func close() {
        closed = true
        stream?.close()
    }
}
