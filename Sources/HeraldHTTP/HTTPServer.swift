import Foundation
import HeraldIO

/// An HTTP/1.1 server with keep-alive on the event loops; each request goes to an async handler.
///
/// A request's head is checked first (`bodyPolicy`): only then is its body read, up to the limit the policy
/// gives, or streamed to the handler, or not read at all. Limits and timeouts are in `HTTP1Limits`.
public final class HTTPServer: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        /// Bodies larger than this get 413, before they are read when their length is announced. The body
        /// limit of servers without a `bodyPolicy`.
        public var maxBodyBytes: Int
        public var limits: HTTP1Limits
        public var tls: TLSServerConfiguration?

        public init(host: String = "127.0.0.1", port: Int = 8080, maxBodyBytes: Int = 1 << 20, limits: HTTP1Limits = HTTP1Limits(),
                    tls: TLSServerConfiguration? = nil) {
            self.host = host
            self.port = port
            self.maxBodyBytes = maxBodyBytes
            self.limits = limits
            self.tls = tls
        }
    }

    public let configuration: Configuration
    private let server: StreamServer

    /// `bodyPolicy` decides, from each request's head, how its body is read; without one every body is
    /// collected up to `configuration.maxBodyBytes`.
    public init(configuration: Configuration, group: EventLoopGroup = .shared, bodyPolicy: HTTPBodyPolicyProvider? = nil,
                handler: @escaping HTTPHandler) throws {
        self.configuration = configuration
        let limit = configuration.maxBodyBytes
        let policy = bodyPolicy ?? { _ in .collect(limit: limit) }
        server = try StreamServer(host: configuration.host, port: configuration.port, tls: configuration.tls, group: group,
                                  maxConnections: configuration.limits.maxConnections,
                                  handshakeTimeout: configuration.limits.headerTimeout) { _, loop in
            HTTP1Connection(loop: loop, limits: configuration.limits, bodyPolicy: policy, handler: handler)
        }
    }

    /// Connections open now, and those closed on arrival because `limits.maxConnections` were open.
    public var connectionCount: Int { server.connectionCount }
    public var refusedConnections: Int { server.refusedConnections }

    public var port: Int { server.port }
    /// New connections get this TLS configuration (a renewed certificate); open ones keep theirs. Throws,
    /// keeping the current one, if OpenSSL refuses it or the server was started without TLS.
    public func replaceTLS(_ configuration: TLSServerConfiguration) throws { try server.replaceTLS(configuration) }
    public func start() async throws { try await server.start() }
    /// Stops accepting and closes the open connections.
    public func stop() async { await server.stop() }
}
