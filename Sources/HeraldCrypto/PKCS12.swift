internal import COpenSSL
internal import CHeraldShims

/// PKCS#12 (`.p12` / `.pfx`) archives: what Keychain Access exports for an APNs certificate.
public enum PKCS12 {
    /// Reads a `.p12`: its private key, its certificate and any CA certificates.
    ///
    /// Archives protected with legacy algorithms (RC2, 3DES: older macOS exports) are read too, by loading
    /// OpenSSL's legacy provider on first need.
    /// - Throws: `CryptoError.wrongPassphrase`, `.notPKCS12`, `.notAKey` (the archive holds no key),
    ///   `.notACertificate` (it holds no certificate).
    public static func load(_ bytes: [UInt8], passphrase: String) throws -> CertificateIdentity {
        let archive: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PKCS12(nil, &cursor, buffer.count)
        }
        guard let archive else {
            throw CryptoError.notPKCS12(detail: drainOpenSSLErrors())
        }
        defer { PKCS12_free(archive) }

        // An empty passphrase may have been applied as "" or as no password at all; try both.
        let candidates: [String?] = passphrase.isEmpty ? ["", nil] : [passphrase]
        guard let password = candidates.first(where: { macVerifies(archive, $0) }) else {
            _ = drainOpenSSLErrors()
            throw CryptoError.wrongPassphrase(what: "the PKCS#12 archive")
        }
        if let identity = try parse(archive, password: password) {
            ERR_clear_error()
            return identity
        }
        let firstFailure = drainOpenSSLErrors()
        if herald_crypto_enable_legacy_algorithms() == 1, let identity = try parse(archive, password: password) {
            ERR_clear_error()
            return identity
        }
        throw CryptoError.openSSL(operation: "PKCS12_parse", detail: firstFailure)
    }

    /// Reads a `.p12` file.
    public static func load(file path: String, passphrase: String) throws -> CertificateIdentity {
        try load(try readFileBytes(path), passphrase: passphrase)
    }

    /// Writes `identity` as a `.p12` protected by `passphrase`, with OpenSSL 3's defaults
    /// (AES-256-CBC with PBKDF2 for key and certificates, HMAC-SHA256 MAC).
    public static func make(_ identity: CertificateIdentity, passphrase: String, friendlyName: String? = nil) throws -> [UInt8] {
        guard let stack = herald_crypto_x509_stack_new() else { throw openSSLFailure("sk_X509_new_null") }
        defer { herald_crypto_x509_stack_free_all(stack) }
        for certificate in identity.chain where herald_crypto_x509_stack_push_ref(stack, certificate.x509) != 1 {
            throw openSSLFailure("sk_X509_push")
        }
        let archive = passphrase.withCString { password in
            withOptionalCString(friendlyName) { name in
                PKCS12_create(password, name, identity.privateKey.evpPKey, identity.certificate.x509, stack, 0, 0, 0, 0, 0)
            }
        }
        guard let archive else { throw openSSLFailure("PKCS12_create") }
        defer { PKCS12_free(archive) }
        guard let der = encodeDER({ i2d_PKCS12(archive, $0) }) else { throw openSSLFailure("i2d_PKCS12") }
        return der
    }

    private static func macVerifies(_ archive: OpaquePointer, _ password: String?) -> Bool {
        guard PKCS12_mac_present(archive) == 1 else { return true }
        guard let password else { return PKCS12_verify_mac(archive, nil, 0) == 1 }
        return password.withCString { PKCS12_verify_mac(archive, $0, Int32(strlen($0))) == 1 }
    }

    /// Nil if OpenSSL could not decrypt the contents (e.g. an algorithm of the legacy provider).
    private static func parse(_ archive: OpaquePointer, password: String?) throws -> CertificateIdentity? {
        var pkey: OpaquePointer?
        var x509: OpaquePointer?
        var stack: OpaquePointer?
        let parsed = withOptionalCString(password) { PKCS12_parse(archive, $0, &pkey, &x509, &stack) }
        guard parsed == 1 else { return nil }
        var chain: [Certificate] = []
        if let stack {
            for index in 0..<herald_crypto_x509_stack_count(stack) {
                if let element = herald_crypto_x509_stack_value(stack, index) { chain.append(Certificate(retaining: element)) }
            }
            herald_crypto_x509_stack_free_all(stack)
        }
        let key = pkey.map(PrivateKey.init(taking:))
        let certificate = x509.map(Certificate.init(taking:))
        guard let key else { throw CryptoError.notAKey(detail: "the PKCS#12 archive holds no private key") }
        guard let certificate else { throw CryptoError.notACertificate(detail: "the PKCS#12 archive holds no certificate") }
        return try CertificateIdentity(privateKey: key, certificate: certificate, chain: chain)
    }
}

func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
