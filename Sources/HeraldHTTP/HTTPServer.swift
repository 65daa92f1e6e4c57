import Foundation
import Synchronization
import HeraldIO

/// An HTTP/1.1 server with keep-alive on the event loops; each request goes to an async handler.
public final class HTTPServer: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        /// Bodies larger than this get 413 before they are read.
        public var maxBodyBytes: Int
        public var tls: TLSServerConfiguration?

        public init(host: String = "127.0.0.1", port: Int = 8080, maxBodyBytes: Int = 16 << 20, tls: TLSServerConfiguration? = nil) {
            self.host = host
            self.port = port
            self.maxBodyBytes = maxBodyBytes
            self.tls = tls
        }
    }

    public let configuration: Configuration
    private let handler: HTTPHandler
    private let group: EventLoopGroup
    private let tlsContext: TLSContext?
    private var listener: TCPListener?
    private let nextID = Atomic<Int>(0)
    private let live = Mutex<[Int: HTTP1Connection]>([:])

    public init(configuration: Configuration, group: EventLoopGroup = .shared, handler: @escaping HTTPHandler) throws {
        self.configuration = configuration
        self.group = group
        self.handler = handler
        self.tlsContext = try configuration.tls.map { try TLSContext(server: $0) }
    }

    public var port: Int { listener?.port ?? 0 }

    public func start() async throws {
        listener = try await TCPListener.start(host: configuration.host, port: configuration.port, group: group) { [self] fd, address, loop in
            loop.execute { [self] in accept(fd: fd, address: address, loop: loop) }
        }
    }

    private func accept(fd: Int32, address: SocketAddress, loop: EventLoop) {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let conn = HTTP1Connection(loop: loop, maxBodyBytes: configuration.maxBodyBytes, handler: handler) { [weak self] in
            _ = self?.live.withLock { $0.removeValue(forKey: id) }
        }
        live.withLock { $0[id] = conn }
        do {
            _ = try StreamConnection.accepted(fd: fd, remote: address.description, tls: tlsContext, loop: loop, delegate: conn)
        } catch {
            close(fd)
            _ = live.withLock { $0.removeValue(forKey: id) }
        }
    }

    /// Stops accepting and closes idle keep-alive connections.
    public func stop() async {
        await listener?.stop()
        let conns = live.withLock { Array($0.values) }
        for c in conns { c.closeOnLoop() }
    }
}
