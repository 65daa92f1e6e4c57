/// A certificate chain and its private key, as PEM. One file may hold both (the seeds' `ck.pem`).
public struct TLSIdentity: Sendable {
    public var certificatePEM: [UInt8]
    public var privateKeyPEM: [UInt8]
    /// Decrypts an encrypted private key (`-----BEGIN ENCRYPTED PRIVATE KEY-----` or a legacy `Proc-Type` key).
    public var passphrase: String?

    public init(certificatePEM: [UInt8], privateKeyPEM: [UInt8], passphrase: String? = nil) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.passphrase = passphrase
    }

    /// Reads both from files (they may be the same file).
    public init(certificateFile: String, privateKeyFile: String? = nil, passphrase: String? = nil) throws {
        let cert = try FileBytes.read(certificateFile)
        let key = try privateKeyFile.map(FileBytes.read) ?? cert
        self.init(certificatePEM: cert, privateKeyPEM: key, passphrase: passphrase)
    }
}

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
    public var identity: TLSIdentity?
    /// Name for SNI and certificate verification; nil uses the host being connected to.
    public var serverName: String?
    public var alpn: [String]

    public init(trust: TLSTrust = .system, identity: TLSIdentity? = nil, serverName: String? = nil, alpn: [String] = ["h2"]) {
        self.trust = trust
        self.identity = identity
        self.serverName = serverName
        self.alpn = alpn
    }
}

public struct TLSServerConfiguration: Sendable {
    public var identity: TLSIdentity
    /// Ask for a client certificate without requiring one; the application judges it.
    public var requestClientCertificate: Bool
    /// Offer `h2` through ALPN (clients with prior knowledge and no ALPN are accepted too).
    public var alpnH2: Bool
    /// Holds every handshake back this long (fault injection: a slow TLS handshake).
    public var handshakeDelay: Duration?

    public init(identity: TLSIdentity, requestClientCertificate: Bool = false, alpnH2: Bool = true, handshakeDelay: Duration? = nil) {
        self.identity = identity
        self.requestClientCertificate = requestClientCertificate
        self.alpnH2 = alpnH2
        self.handshakeDelay = handshakeDelay
    }
}

enum FileBytes {
    static func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw IOError.tls("cannot read \(path): check the path and its permissions")
        }
        return [UInt8](data)
    }
}

import Foundation
