import Foundation
import Synchronization
import HeraldIO

/// An HTTP/2 server: TLS with ALPN h2 (client certificates optional) or cleartext h2c with prior knowledge.
public final class HTTP2Server: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        /// nil serves cleartext HTTP/2 with prior knowledge.
        public var tls: TLSServerConfiguration?
        public var maxConcurrentStreams: UInt32
        /// Response header names (lowercase) whose values are unique to one response, such as APNs' `apns-id`:
        /// sent as literals HPACK never indexes (`HTTP2HeaderFields.neverIndexed`).
        public var uniqueResponseHeaders: [String]

        public init(host: String = "127.0.0.1", port: Int = 0, tls: TLSServerConfiguration? = nil, maxConcurrentStreams: UInt32 = 1000,
                    uniqueResponseHeaders: [String] = []) {
            self.host = host
            self.port = port
            self.tls = tls
            self.maxConcurrentStreams = maxConcurrentStreams
            self.uniqueResponseHeaders = uniqueResponseHeaders
        }
    }

    public let configuration: Configuration
    private let server: StreamServer

    public init(configuration: Configuration, delegate: HTTP2ServerDelegate, group: EventLoopGroup = .shared) throws {
        self.configuration = configuration
        let ids = Atomic<UInt64>(1)
        let isTLS = configuration.tls != nil
        server = try StreamServer(host: configuration.host, port: configuration.port, tls: configuration.tls, group: group) { remote, loop in
            HTTP2ServerConnection(id: ids.wrappingAdd(1, ordering: .relaxed).oldValue, loop: loop, isTLS: isTLS,
                                  remoteAddress: remote, delegate: delegate, maxConcurrentStreams: configuration.maxConcurrentStreams,
                                  uniqueResponseHeaders: configuration.uniqueResponseHeaders)
        }
    }

    /// The bound port (useful with port 0).
    public var port: Int { server.port }
    public func start() async throws { try await server.start() }
    /// Connections currently open.
    public var connectionCount: Int { server.connectionCount }
    /// Stops accepting and closes every connection.
    public func stop() async { await server.stop() }
}
