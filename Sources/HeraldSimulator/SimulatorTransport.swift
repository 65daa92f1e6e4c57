import HeraldCrypto
import HeraldHTTP

/// The sockets the simulator needs, provided by the transport layer (HeraldHTTP/HeraldIO servers).
/// `Simulator.start(transport:)` asks for each listener; the transport binds, serves and returns the port.
public protocol SimulatorTransport: Sendable {
    /// An HTTP/2 server (TLS with ALPN h2 and prior-knowledge h2 both accepted, or h2c when `tls` is nil).
    func serveProvider(host: String, port: Int, tls: SimulatorTLS?, delegate: any HTTP2ServerDelegate) async throws -> Int
    /// An HTTP/1.1 server for the inspection API and device streams.
    func serveHTTP(host: String, port: Int, handler: @escaping HTTPHandler) async throws -> Int
    /// A TLS TCP server for the legacy binary API: one `LegacyConnection` per accepted connection; feed it
    /// what arrives, write what it returns, close when it says so.
    func serveLegacy(host: String, port: Int, tls: SimulatorTLS,
                     accept: @escaping @Sendable (_ peerCertificate: Certificate?) -> any LegacyConnection) async throws -> Int
    /// Closes every listener and connection it opened.
    func shutdown() async
}

/// TLS settings for the simulator's listeners.
public struct SimulatorTLS: Sendable {
    public var identity: CertificateIdentity
    /// Client certificates are requested, not required (none = token auth), and verified against this CA.
    public var clientCertificateAuthority: Certificate
    /// The fault injector's `tlsHandshakeDelayMilliseconds`, asked at each handshake.
    public var handshakeDelayMilliseconds: @Sendable () -> Int
}

/// One legacy TCP connection's protocol logic.
public protocol LegacyConnection: AnyObject {
    /// Bytes to write back (possibly empty), and whether to close the connection after writing them.
    func receive(_ bytes: [UInt8]) -> (reply: [UInt8], close: Bool)
    /// What to send right after the handshake (the feedback service sends everything here), and
    /// whether to close after it.
    func opened() -> (reply: [UInt8], close: Bool)
}

/// Where a started simulator listens (0 = that listener is off).
public struct SimulatorPorts: Sendable, Equatable {
    public var sandbox = 0
    public var production = 0
    public var inspection = 0
    public var legacyGateway = 0
    public var legacyFeedback = 0
}
