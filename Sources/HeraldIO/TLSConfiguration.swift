import Foundation
import HeraldCrypto

/// How a client decides to trust the server.
public enum TLSTrust: Sendable {
    /// The operating system's CA bundle.
    case system
    /// Only the CAs in this PEM file (the simulator's CA, a corporate proxy's CA).
    case caFile(String)
    /// Only the CAs in these PEM bytes.
    case caPEM([UInt8])
}

public struct TLSClientConfiguration: Sendable {
    public var trust: TLSTrust
    public var identity: CertificateIdentity?
    /// Name for SNI and certificate verification; nil uses the host being connected to.
    public var serverName: String?
    public var alpn: [String]

    public init(trust: TLSTrust = .system, identity: CertificateIdentity? = nil, serverName: String? = nil, alpn: [String] = ["h2"]) {
        self.trust = trust
        self.identity = identity
        self.serverName = serverName
        self.alpn = alpn
    }
}

public struct TLSServerConfiguration: Sendable {
    public var identity: CertificateIdentity
    /// Ask for a client certificate without requiring one; the application judges it.
    public var requestClientCertificate: Bool
    /// Protocols offered through ALPN, preferred first: `h2` for the HTTP/2 servers, `http/1.1` for the
    /// HTTP/1.1 one. A client that offers none of them, or no ALPN, is accepted without a choice (HTTP/2
    /// clients with prior knowledge). Empty: no ALPN. At most 255 bytes in wire form.
    public var alpn: [String]
    /// Asked at each handshake how long to hold it back (fault injection: a slow TLS handshake).
    public var handshakeDelay: (@Sendable () -> Duration)?

    public init(identity: CertificateIdentity, requestClientCertificate: Bool = false, alpn: [String] = ["h2"],
                handshakeDelay: (@Sendable () -> Duration)? = nil) {
        self.identity = identity
        self.requestClientCertificate = requestClientCertificate
        self.alpn = alpn
        self.handshakeDelay = handshakeDelay
    }
}


extension CertificateIdentity {
    /// Loads a certificate chain and key from PEM files (one file may hold both, like the seeds' `ck.pem`).
    public init(certificateFile: String, privateKeyFile: String? = nil, passphrase: String? = nil) throws {
        let certificates = try String(contentsOfFile: certificateFile, encoding: .utf8)
        let key = try privateKeyFile.map { try String(contentsOfFile: $0, encoding: .utf8) } ?? certificates
        try self.init(keyPEM: key, certificatesPEM: certificates, passphrase: passphrase)
    }
}
