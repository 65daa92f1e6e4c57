import Foundation
internal import COpenSSL
internal import CHeraldShims

/// Owns an `SSL_CTX`. Built once per configuration and shared by every connection: OpenSSL allows
/// concurrent use of a context once it is set up, which is why it is `@unchecked Sendable`.
public final class TLSContext: @unchecked Sendable {
    let ctx: OpaquePointer
    let isServer: Bool
    let handshakeDelay: Duration?

    public convenience init(client config: TLSClientConfiguration) throws {
        try self.init(isServer: false, identity: config.identity, handshakeDelay: nil)
        switch config.trust {
        case .system:
            guard SSL_CTX_set_default_verify_paths(ctx) == 1 else { throw TLSContext.lastError("loading the system CA store") }
        case let .caFile(path):
            guard SSL_CTX_load_verify_locations(ctx, path, nil) == 1 else {
                throw IOError.tls("cannot load CA file \(path): \(TLSContext.lastErrorText()); give a PEM file with one or more CA certificates")
            }
        case let .caPEM(pem):
            try addCAs(pem)
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        if !config.alpn.isEmpty {
            var wire: [UInt8] = []
            for p in config.alpn { wire.append(UInt8(p.utf8.count)); wire += p.utf8 }
            guard SSL_CTX_set_alpn_protos(ctx, wire, UInt32(wire.count)) == 0 else { throw TLSContext.lastError("setting ALPN") }
        }
    }

    public convenience init(server config: TLSServerConfiguration) throws {
        try self.init(isServer: true, identity: config.identity, handshakeDelay: config.handshakeDelay)
        if config.alpnH2 { herald_tls_ctx_enable_alpn_h2_server(ctx) }
        if config.requestClientCertificate { herald_tls_ctx_request_client_cert(ctx) }
        // Resumption would skip the client certificate on reconnects; the simulator needs it every time.
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
        _ = SSL_CTX_set_num_tickets(ctx, 0)
    }

    private init(isServer: Bool, identity: TLSIdentity?, handshakeDelay: Duration?) throws {
        guard let ctx = SSL_CTX_new(isServer ? TLS_server_method() : TLS_client_method()) else {
            throw TLSContext.lastError("creating a TLS context")
        }
        self.ctx = ctx
        self.isServer = isServer
        self.handshakeDelay = handshakeDelay
        _ = herald_tls_ctx_set_min_tls12(ctx)
        _ = herald_tls_ctx_set_mode_partial_write(ctx)
        if let identity { try use(identity) }
    }

    deinit { SSL_CTX_free(ctx) }

    private func use(_ identity: TLSIdentity) throws {
        let chain = try PEMReader.certificates(identity.certificatePEM)
        guard let leaf = chain.first else {
            throw IOError.tls("no certificate found in the PEM data: expected a -----BEGIN CERTIFICATE----- block")
        }
        defer { chain.forEach { X509_free($0) } }
        guard SSL_CTX_use_certificate(ctx, leaf) == 1 else { throw TLSContext.lastError("using the certificate") }
        for extra in chain.dropFirst() {
            // add0 takes ownership, so hand it its own reference.
            X509_up_ref(extra)
            _ = SSL_CTX_ctrl(ctx, SSL_CTRL_EXTRA_CHAIN_CERT, 0, UnsafeMutableRawPointer(extra))
        }
        let key = try PEMReader.privateKey(identity.privateKeyPEM, passphrase: identity.passphrase)
        defer { EVP_PKEY_free(key) }
        guard SSL_CTX_use_PrivateKey(ctx, key) == 1 else { throw TLSContext.lastError("using the private key") }
        guard SSL_CTX_check_private_key(ctx) == 1 else {
            throw IOError.tls("the private key does not match the certificate")
        }
    }

    private func addCAs(_ pem: [UInt8]) throws {
        let certs = try PEMReader.certificates(pem)
        guard !certs.isEmpty else { throw IOError.tls("no CA certificate found in the given PEM") }
        let store = SSL_CTX_get_cert_store(ctx)
        for cert in certs {
            X509_STORE_add_cert(store, cert)
            X509_free(cert)
        }
    }

    static func lastErrorText() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        herald_tls_last_error(&buffer, buffer.count)
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return text.isEmpty ? "unknown OpenSSL error" : text
    }

    static func lastError(_ doing: String) -> IOError { .tls("\(doing): \(lastErrorText())") }
}

/// Reads PEM blocks with OpenSSL.
enum PEMReader {
    /// Every certificate in the PEM bytes, in order; the caller frees them.
    static func certificates(_ pem: [UInt8]) throws -> [OpaquePointer] {
        try pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { throw TLSContext.lastError("reading PEM") }
            defer { BIO_free(bio) }
            var out: [OpaquePointer] = []
            while let cert = PEM_read_bio_X509(bio, nil, nil, nil) { out.append(cert) }
            ERR_clear_error()
            return out
        }
    }

    /// The first private key in the PEM bytes; the caller frees it.
    static func privateKey(_ pem: [UInt8], passphrase: String?) throws -> OpaquePointer {
        try pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { throw TLSContext.lastError("reading PEM") }
            defer { BIO_free(bio) }
            let key: OpaquePointer? = (passphrase ?? "").withCString { pass in
                PEM_read_bio_PrivateKey(bio, nil, nil, UnsafeMutableRawPointer(mutating: pass))
            }
            guard let key else {
                let why = TLSContext.lastErrorText()
                if why.contains("bad decrypt") || why.contains("maybe wrong password") || why.contains("interrupted or cancelled") {
                    throw IOError.tls("cannot decrypt the private key: the passphrase is wrong or missing (--passphrase)")
                }
                throw IOError.tls("no usable private key in the PEM data (\(why)): expected a -----BEGIN ... PRIVATE KEY----- block")
            }
            return key
        }
    }
}
