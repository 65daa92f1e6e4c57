import Foundation
import Synchronization

/// Accepts TCP connections (optionally TLS) and gives each to a delegate made for it. The HTTP/1.1,
/// HTTP/2 and raw binary servers are all built on it.
public final class StreamServer: @unchecked Sendable {
    /// The context new connections get; `replaceTLS` swaps it while the server runs.
    public var tls: TLSContext? { tlsContext.withLock { $0 } }
    private let tlsContext: Mutex<TLSContext?>
    private let group: EventLoopGroup
    private let host: String
    private let requestedPort: Int
    private let maxConnections: Int
    private let handshakeTimeout: Duration
    private let makeDelegate: @Sendable (_ remote: String, _ loop: EventLoop) -> ConnectionDelegate
    private var listener: TCPListener?
    private let live = Mutex<[ObjectIdentifier: StreamConnection]>([:])

    /// `makeDelegate` runs on the loop that will own the connection. Past `maxConnections` open at once, a
    /// new connection is closed as soon as it is accepted, so a flood cannot use up file descriptors.
    public init(host: String, port: Int, tls: TLSServerConfiguration?, group: EventLoopGroup = .shared, maxConnections: Int = .max,
                handshakeTimeout: Duration = .seconds(10),
                makeDelegate: @escaping @Sendable (_ remote: String, _ loop: EventLoop) -> ConnectionDelegate) throws {
        self.host = host
        self.requestedPort = port
        self.maxConnections = maxConnections
        self.handshakeTimeout = handshakeTimeout
        self.group = group
        self.tlsContext = Mutex(try tls.map { try TLSContext(server: $0) })
        self.makeDelegate = makeDelegate
    }

    /// The bound port (after `start`; useful with port 0).
    public var port: Int { listener?.port ?? 0 }

    public func start() async throws {
        listener = try await TCPListener.start(host: host, port: requestedPort, group: group) { [self] fd, address, loop in
            // Counted here, not when the loop registers it, so a burst of accepts cannot overshoot the limit.
            guard admitted.add(1, ordering: .relaxed).newValue <= maxConnections else {
                admitted.subtract(1, ordering: .relaxed)
                refused.add(1, ordering: .relaxed)
                close(fd)
                return
            }
            loop.execute { [self] in
                let delegate = makeDelegate(address.description, loop)
                do {
                    let tracking = Tracking(inner: delegate, server: self)
                    let conn = try StreamConnection.accepted(fd: fd, remote: address.description, tls: self.tls, loop: loop, delegate: tracking,
                                                             handshakeTimeout: handshakeTimeout)
                    // A TLS handshake can fail inside `accepted`, before the connection is listed.
                    if tracking.closed { admitted.subtract(1, ordering: .relaxed) } else { live.withLock { $0[ObjectIdentifier(conn)] = conn } }
                } catch {
                    admitted.subtract(1, ordering: .relaxed)
                    close(fd)
                }
            }
        }
    }

    /// Gives connections accepted from now on a new certificate (or other TLS settings); open connections
    /// keep the one they were made with. The new context is built first, so a configuration OpenSSL refuses
    /// throws and leaves the current one in place. A server started without TLS cannot take one on.
    public func replaceTLS(_ configuration: TLSServerConfiguration) throws {
        guard tls != nil else { throw IOError.tls("this listener was started without TLS; it cannot take a certificate while running") }
        let context = try TLSContext(server: configuration)
        tlsContext.withLock { $0 = context }
    }

    /// Connections closed on arrival because `maxConnections` were open.
    public var refusedConnections: Int { refused.load(ordering: .relaxed) }
    private let refused = Atomic<Int>(0)
    private let admitted = Atomic<Int>(0)

    /// Connections currently open.
    public var connectionCount: Int { live.withLock { $0.count } }

    /// Stops accepting and closes every open connection.
    public func stop() async {
        await listener?.stop()
        let conns = live.withLock { Array($0.values) }
        for c in conns { c.loop.execute { c.close() } }
    }

    fileprivate func forget(_ conn: StreamConnection) {
        if live.withLock({ $0.removeValue(forKey: ObjectIdentifier(conn)) }) != nil { admitted.subtract(1, ordering: .relaxed) }
    }

    /// Forwards to the real delegate and keeps the server's list of open connections current.
    private final class Tracking: ConnectionDelegate {
        let inner: ConnectionDelegate
        weak var server: StreamServer?
        var closed = false
        init(inner: ConnectionDelegate, server: StreamServer) { self.inner = inner; self.server = server }
        func streamDidBecomeReady(_ stream: StreamConnection) { inner.streamDidBecomeReady(stream) }
        func stream(_ stream: StreamConnection, didRead bytes: UnsafeRawBufferPointer) { inner.stream(stream, didRead: bytes) }
        func streamDidDrain(_ stream: StreamConnection) { inner.streamDidDrain(stream) }
        func streamDidReachEndOfInput(_ stream: StreamConnection) { inner.streamDidReachEndOfInput(stream) }
        func streamDidClose(_ stream: StreamConnection, error: IOError?) {
            closed = true
            server?.forget(stream)
            inner.streamDidClose(stream, error: error)
        }
    }
}
