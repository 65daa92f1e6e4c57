import Foundation
import HeraldIO

/// An HTTP/1.1 server with keep-alive on the event loops; each request goes to an async handler.
public final class HTTPServer: Sendable {
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
    private let server: StreamServer

    public init(configuration: Configuration, group: EventLoopGroup = .shared, handler: @escaping HTTPHandler) throws {
        self.configuration = configuration
        server = try StreamServer(host: configuration.host, port: configuration.port, tls: configuration.tls, group: group) { _, loop in
            HTTP1Connection(loop: loop, maxBodyBytes: configuration.maxBodyBytes, handler: handler)
        }
    }

    public var port: Int { server.port }
    public func start() async throws { try await server.start() }
    /// Stops accepting and closes the open connections.
    public func stop() async { await server.stop() }
}
