import Foundation
import HeraldCrypto
import HeraldHTTP
import HeraldIO
import Synchronization

/// `SimulatorTransport` over Herald's own servers: `HTTP2Server` for the provider API, `HTTPServer` for
/// the inspection API, and TLS TCP listeners for the legacy gateway and feedback service.
public final class NetworkTransport: SimulatorTransport {
    private let group: EventLoopGroup
    private let servers = Mutex<[Server]>([])

    private enum Server: @unchecked Sendable {
        case http2(HTTP2Server)
        case http(HTTPServer)
        case legacy(TCPListener)
    }

    public init(group: EventLoopGroup = .shared) { self.group = group }

    public func serveProvider(host: String, port: Int, tls: SimulatorTLS?, delegate: any HTTP2ServerDelegate) async throws -> Int {
        // APNs' ids are fresh in every answer: indexing them would only evict the table's useful entries.
        let server = try HTTP2Server(configuration: .init(host: host, port: port, tls: tls.map(Self.serverConfiguration),
                                                          uniqueResponseHeaders: ["apns-id", "apns-unique-id"]),
                                     delegate: delegate, group: group)
        try await server.start()
        servers.withLock { $0.append(.http2(server)) }
        return server.port
    }

    public func serveHTTP(host: String, port: Int, handler: @escaping HTTPHandler) async throws -> Int {
        let server = try HTTPServer(configuration: .init(host: host, port: port), group: group, handler: handler)
        try await server.start()
        servers.withLock { $0.append(.http(server)) }
        return server.port
    }

    public func serveLegacy(host: String, port: Int, tls: SimulatorTLS,
                            accept: @escaping @Sendable (Certificate?) -> any LegacyConnection) async throws -> Int {
        var configuration = Self.serverConfiguration(tls)
        configuration.alpn = []
        let context = try TLSContext(server: configuration)
        let listener = try await TCPListener.start(host: host, port: port, group: group) { fd, address, loop in
            loop.execute {
                let handler = LegacyStreamHandler(accept: accept)
                if (try? StreamConnection.accepted(fd: fd, remote: address.description, tls: context, loop: loop, delegate: handler)) == nil {
                    Glibc.close(fd)
                }
            }
        }
        servers.withLock { $0.append(.legacy(listener)) }
        return listener.port
    }

    public func shutdown() async {
        let all = servers.withLock { s -> [Server] in
            defer { s = [] }
            return s
        }
        for server in all {
            switch server {
            case let .http2(s): await s.stop()
            case let .http(s): await s.stop()
            case let .legacy(l): await l.stop()
            }
        }
    }

    /// Client certificates are requested, never required (none = token auth); the simulator judges them.
    /// The handshake delay is asked at each handshake, so `PUT /faults` changes it at once.
    static func serverConfiguration(_ tls: SimulatorTLS) -> TLSServerConfiguration {
        let delay = tls.handshakeDelayMilliseconds
        return TLSServerConfiguration(identity: tls.identity, requestClientCertificate: true, alpn: ["h2"],
                                      handshakeDelay: { .milliseconds(delay()) })
    }
}

/// Drives one `LegacyConnection` on a TLS stream: feeds it what arrives, writes what it answers, and
/// closes once everything it wrote has left.
private final class LegacyStreamHandler: ConnectionDelegate {
    private let accept: @Sendable (Certificate?) -> any LegacyConnection
    private var connection: (any LegacyConnection)?
    private var closeWhenDrained = false

    init(accept: @escaping @Sendable (Certificate?) -> any LegacyConnection) { self.accept = accept }

    func streamDidBecomeReady(_ stream: StreamConnection) {
        let connection = accept(stream.peerCertificateDER.flatMap { try? Certificate(der: $0) })
        self.connection = connection
        apply(connection.opened(), on: stream)
    }

    func stream(_ stream: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        guard let connection, !closeWhenDrained else { return }
        apply(connection.receive(Array(bytes)), on: stream)
    }

    func streamDidDrain(_ stream: StreamConnection) {
        if closeWhenDrained { stream.close() }
    }

    func streamDidClose(_ stream: StreamConnection, error: IOError?) { connection = nil }

    private func apply(_ output: (reply: [UInt8], close: Bool), on stream: StreamConnection) {
        if !output.reply.isEmpty { stream.write(output.reply) }
        guard output.close else { return }
        closeWhenDrained = true
        if stream.pendingOutput == 0 { stream.close() }
    }
}
