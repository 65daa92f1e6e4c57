/// A certificate with its private key and the chain that leads to a trusted root: what a TLS endpoint
/// presents (an APNs client certificate, a simulator's server certificate).
///
/// Sendable: an immutable struct of Sendable parts.
public struct CertificateIdentity: Sendable {
    public let privateKey: PrivateKey
    /// The end-entity (leaf) certificate.
    public let certificate: Certificate
    /// Intermediate and CA certificates after the leaf, leaf-side first.
    public let chain: [Certificate]

    /// Pairs a key and a certificate, checking that they belong together.
    /// - Throws: `CryptoError.keyCertificateMismatch`.
    public init(privateKey: PrivateKey, certificate: Certificate, chain: [Certificate] = []) throws {
        guard privateKey.matches(certificate) else { throw CryptoError.keyCertificateMismatch }
        self.privateKey = privateKey
        self.certificate = certificate
        self.chain = chain
    }

    /// Loads a combined PEM (a `ck.pem`: the private key, possibly encrypted, and the certificates, in any
    /// order, as `openssl pkcs12 -nodes` or `cat cert.pem key.pem` make). The leaf is the certificate that
    /// matches the key; the other certificates become the chain.
    public init(pem: String, passphrase: String? = nil) throws {
        try self.init(keyPEM: pem, certificatesPEM: pem, passphrase: passphrase)
    }

    /// Loads a key and its certificates from separate PEM texts.
    public init(keyPEM: String, certificatesPEM: String, passphrase: String? = nil) throws {
        let key = try PrivateKey(pem: keyPEM, passphrase: passphrase)
        let certificates = try Certificate.loadAll(pem: certificatesPEM)
        guard !certificates.isEmpty else {
            throw CryptoError.notACertificate(detail: "the PEM has a key but no 'BEGIN CERTIFICATE' block")
        }
        guard let leafIndex = certificates.firstIndex(where: key.matches) else { throw CryptoError.keyCertificateMismatch }
        var chain = certificates
        let leaf = chain.remove(at: leafIndex)
        try self.init(privateKey: key, certificate: leaf, chain: chain)
    }

    /// Loads a combined PEM file.
    public init(pemFile path: String, passphrase: String? = nil) throws {
        try self.init(pem: pemText(of: try readFileBytes(path)), passphrase: passphrase)
    }

    /// The leaf, the chain and the key as one PEM text (the key encrypted if `passphrase` is given).
    public func pem(passphrase: String? = nil) throws -> String {
        certificateChainPEM + (try privateKey.pkcs8PEM(passphrase: passphrase))
    }

    /// The leaf followed by the chain, as PEM (what a TLS endpoint presents).
    public var certificateChainPEM: String { ([certificate] + chain).map(\.pem).joined() }

    /// The chain's `X509 *` handles, leaf-side first, for `SSL_CTX_add1_chain_cert` (borrowed; they live
    /// as long as this identity).
    package var chainX509: [OpaquePointer] { chain.map(\.x509) }
}
