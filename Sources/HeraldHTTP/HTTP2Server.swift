import Foundation
import Synchronization
import HeraldIO

/// An HTTP/2 server: TLS with ALPN h2 (client certificates optional) or cleartext h2c with prior knowledge.
public final class HTTP2Server: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        /// nil serves cleartext HTTP/2 with prior knowledge.
        public var tls: TLSServerConfiguration?
        public var maxConcurrentStreams: UInt32

        public init(host: String = "127.0.0.1", port: Int = 0, tls: TLSServerConfiguration? = nil, maxConcurrentStreams: UInt32 = 1000) {
            self.host = host
            self.port = port
            self.tls = tls
            self.maxConcurrentStreams = maxConcurrentStreams
        }
    }

    public let configuration: Configuration
    private let delegate: HTTP2ServerDelegate
    private let group: EventLoopGroup
    private let tlsContext: TLSContext?
    private var listener: TCPListener?
    private let nextID = Atomic<UInt64>(1)
    private let live = Mutex<[UInt64: HTTP2ServerConnection]>([:])

    public init(configuration: Configuration, delegate: HTTP2ServerDelegate, group: EventLoopGroup = .shared) throws {
        self.configuration = configuration
        self.delegate = delegate
        self.group = group
        self.tlsContext = try configuration.tls.map { try TLSContext(server: $0) }
    }

    /// The bound port (useful with port 0).
    public var port: Int { listener?.port ?? 0 }

    public func start() async throws {
        listener = try await TCPListener.start(host: configuration.host, port: configuration.port, group: group) { [self] fd, address, loop in
            loop.execute { [self] in accept(fd: fd, address: address, loop: loop) }
        }
    }

    private func accept(fd: Int32, address: SocketAddress, loop: EventLoop) {
        let conn = HTTP2ServerConnection(id: nextID.wrappingAdd(1, ordering: .relaxed).oldValue, loop: loop,
                                         isTLS: tlsContext != nil, remoteAddress: address.description,
                                         delegate: delegate, maxConcurrentStreams: configuration.maxConcurrentStreams)
        conn.server = self
        live.withLock { $0[conn.id] = conn }
        do {
            _ = try StreamConnection.accepted(fd: fd, remote: address.description, tls: tlsContext, loop: loop, delegate: conn)
        } catch {
            close(fd)
            forget(conn)
        }
    }

    func forget(_ connection: HTTP2ServerConnection) {
        _ = live.withLock { $0.removeValue(forKey: connection.id) }
    }

    /// Connections currently open.
    public var connectionCount: Int { live.withLock { $0.count } }

    /// Stops accepting and closes every connection.
    public func stop() async {
        await listener?.stop()
        let conns = live.withLock { Array($0.values) }
        for c in conns { c.loop.execute { c.stream?.close() } }
    }
}
