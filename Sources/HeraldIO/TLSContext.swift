import Foundation
import HeraldCrypto
internal import COpenSSL
internal import CHeraldShims

/// Owns an `SSL_CTX`. Built once per configuration and shared by every connection: OpenSSL allows
/// concurrent use of a context once it is set up, which is why it is `@unchecked Sendable`.
public final class TLSContext: @unchecked Sendable {
    let ctx: OpaquePointer
    let isServer: Bool
    let handshakeDelay: (@Sendable () -> Duration)?
    /// The server's ALPN list for the selection callback (length byte, then wire form); freed in `deinit`.
    private var serverALPN: UnsafeMutablePointer<UInt8>?

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
            let wire = Self.alpnWire(config.alpn)
            guard SSL_CTX_set_alpn_protos(ctx, wire, UInt32(wire.count)) == 0 else { throw TLSContext.lastError("setting ALPN") }
        }
    }

    public convenience init(server config: TLSServerConfiguration) throws {
        try self.init(isServer: true, identity: config.identity, handshakeDelay: config.handshakeDelay)
        if !config.alpn.isEmpty {
            let wire = Self.alpnWire(config.alpn)
            guard wire.count <= 255 else { throw IOError.tls("the ALPN protocol list is longer than 255 bytes") }
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: wire.count + 1)
            buffer[0] = UInt8(wire.count)
            for (i, byte) in wire.enumerated() { buffer[i + 1] = byte }
            serverALPN = buffer
            herald_tls_ctx_set_alpn_server(ctx, buffer)
        }
        if config.requestClientCertificate { herald_tls_ctx_request_client_cert(ctx) }
        // Resumption would skip the client certificate on reconnects; the simulator needs it every time.
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
        _ = SSL_CTX_set_num_tickets(ctx, 0)
    }

    private init(isServer: Bool, identity: CertificateIdentity?, handshakeDelay: (@Sendable () -> Duration)?) throws {
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

    deinit {
        SSL_CTX_free(ctx)
        serverALPN?.deallocate()
    }

    /// ALPN's wire form: each protocol name preceded by its length.
    private static func alpnWire(_ protocols: [String]) -> [UInt8] {
        var wire: [UInt8] = []
        for p in protocols { wire.append(UInt8(p.utf8.count)); wire += p.utf8 }
        return wire
    }

    private func use(_ identity: CertificateIdentity) throws {
        guard SSL_CTX_use_certificate(ctx, identity.certificate.x509) == 1 else { throw TLSContext.lastError("using the certificate") }
        for extra in identity.chainX509 {
            // The context takes ownership of what it is given, so hand it its own reference.
            X509_up_ref(extra)
            _ = SSL_CTX_ctrl(ctx, SSL_CTRL_EXTRA_CHAIN_CERT, 0, UnsafeMutableRawPointer(extra))
        }
        guard SSL_CTX_use_PrivateKey(ctx, identity.privateKey.evpPKey) == 1 else { throw TLSContext.lastError("using the private key") }
        guard SSL_CTX_check_private_key(ctx) == 1 else {
            throw IOError.tls("the private key does not match the certificate")
        }
    }

    private func addCAs(_ pem: [UInt8]) throws {
        let certs = try Certificate.loadAll(pem: String(decoding: pem, as: UTF8.self))
        guard !certs.isEmpty else { throw IOError.tls("no CA certificate found in the given PEM") }
        let store = SSL_CTX_get_cert_store(ctx)
        for cert in certs { X509_STORE_add_cert(store, cert.x509) }
    }

    static func lastErrorText() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        herald_tls_last_error(&buffer, buffer.count)
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return text.isEmpty ? "unknown OpenSSL error" : text
    }

    static func lastError(_ doing: String) -> IOError { .tls("\(doing): \(lastErrorText())") }
}

