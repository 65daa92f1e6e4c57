internal import COpenSSL

/// A private key (EC or RSA) held by OpenSSL.
///
/// Loads APNs `.p8` keys (PKCS#8), traditional `BEGIN EC/RSA PRIVATE KEY` PEM, and encrypted PEM (both
/// `BEGIN ENCRYPTED PRIVATE KEY` and `Proc-Type: 4,ENCRYPTED`); in a PEM file that also holds
/// certificates (a `ck.pem`), the key block is found wherever it is.
///
/// `@unchecked Sendable`: the EVP_PKEY is never modified after creation, and OpenSSL allows concurrent
/// read-only use of one EVP_PKEY; the signing context it caches is guarded by `KeyOperationContext`.
public final class PrivateKey: @unchecked Sendable {
    /// The owned `EVP_PKEY *`, for the TLS layer (`SSL_CTX_use_PrivateKey`). Borrowed: do not free it.
    package let evpPKey: OpaquePointer
    /// What kind of key this is.
    public let algorithm: KeyAlgorithm
    /// The matching public key (it shares the EVP_PKEY, so this costs nothing).
    public let publicKey: PublicKey
    private let signing: KeyOperationContext

    /// Takes ownership of `pkey`.
    init(taking pkey: OpaquePointer) {
        evpPKey = pkey
        algorithm = KeyAlgorithm(of: pkey)
        signing = KeyOperationContext(pkey: pkey, operation: .sign)
        publicKey = PublicKey(sharing: pkey)
    }

    deinit { EVP_PKEY_free(evpPKey) }

    /// Loads the first private key in PEM text.
    /// - Parameter passphrase: needed when the key is encrypted; ignored otherwise.
    /// - Throws: `CryptoError.passphraseRequired`, `.wrongPassphrase`, `.notAKey`.
    public convenience init(pem: String, passphrase: String? = nil) throws {
        let bytes = Array(pem.utf8)
        let pkey = try withReadBIO(bytes) { bio in
            withPassphrase(passphrase) { PEM_read_bio_PrivateKey(bio, nil, passphraseCallback, $0) }
        }
        guard let pkey else {
            let detail = drainOpenSSLErrors()
            if !pem.contains("PRIVATE KEY") {
                throw CryptoError.notAKey(detail: "the text has no 'BEGIN ... PRIVATE KEY' block")
            }
            if pem.contains("ENCRYPTED") {
                throw passphrase == nil ? CryptoError.passphraseRequired(what: "the private key")
                    : CryptoError.wrongPassphrase(what: "the private key")
            }
            throw CryptoError.notAKey(detail: detail)
        }
        // Skipping the other blocks of a combined PEM can leave errors queued; a TLS layer reading the
        // queue later on this thread must not see them.
        ERR_clear_error()
        self.init(taking: pkey)
    }

    /// Loads a private key from a PEM file (a `.p8`, a `key.pem`, or a combined `ck.pem`).
    public convenience init(pemFile path: String, passphrase: String? = nil) throws {
        try self.init(pem: pemText(of: try readFileBytes(path)), passphrase: passphrase)
    }

    /// Loads an unencrypted DER private key (PKCS#8 or traditional EC/RSA).
    public convenience init(der: [UInt8]) throws {
        let pkey: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        guard let pkey else { throw CryptoError.notAKey(detail: drainOpenSSLErrors()) }
        self.init(taking: pkey)
    }

    /// Generates a new EC key on P-256 (what APNs `.p8` keys are).
    public static func generateP256() throws -> PrivateKey {
        try generate(type: "EC") { EVP_PKEY_CTX_set_group_name($0, "P-256") }
    }

    /// Generates a new RSA key.
    public static func generateRSA(bits: Int = 2048) throws -> PrivateKey {
        guard (1024...16384).contains(bits) else {
            throw CryptoError.invalidArgument("RSA key size \(bits) is out of range: use 2048, 3072 or 4096")
        }
        return try generate(type: "RSA") { EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(bits)) }
    }

    private static func generate(type: String, configure: (OpaquePointer) -> Int32) throws -> PrivateKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
            throw openSSLFailure("EVP_PKEY_CTX_new_from_name(\(type))")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, configure(context) == 1,
              EVP_PKEY_generate(context, &pkey) == 1, let pkey else {
            throw openSSLFailure("generating a \(type) key")
        }
        return PrivateKey(taking: pkey)
    }

    /// The key as PKCS#8 PEM (`BEGIN PRIVATE KEY`, the `.p8` format), or, with a passphrase,
    /// as encrypted PKCS#8 (`BEGIN ENCRYPTED PRIVATE KEY`, AES-256-CBC with PBKDF2).
    public func pkcs8PEM(passphrase: String? = nil) throws -> String {
        try withMemoryBIO { bio in
            let written: Int32
            if let passphrase {
                guard !passphrase.isEmpty else {
                    throw CryptoError.invalidArgument("an empty passphrase cannot encrypt a key: pass nil for a plain key")
                }
                written = passphrase.withCString {
                    PEM_write_bio_PKCS8PrivateKey(bio, evpPKey, EVP_aes_256_cbc(), $0, Int32(strlen($0)), nil, nil)
                }
            } else {
                written = PEM_write_bio_PKCS8PrivateKey(bio, evpPKey, nil, nil, 0, nil, nil)
            }
            guard written == 1 else { throw openSSLFailure("PEM_write_bio_PKCS8PrivateKey") }
            return memoryBIOString(bio)
        }
    }

    /// Signs `message` with ES256 (ECDSA P-256 over SHA-256) and returns the 64-byte raw `r||s`
    /// signature that JWS (and so APNs provider tokens) uses.
    ///
    /// Thread-safe; concurrent callers do not wait for each other.
    /// - Throws: `CryptoError.unsupportedKey` if this is not a P-256 key.
    public func signES256<M: Collection>(_ message: M) throws -> [UInt8] where M.Element == UInt8 {
        guard algorithm.isP256 else { throw CryptoError.unsupportedKey(expected: "EC P-256 (ES256)", found: algorithm.description) }
        let digest = Digest.sha256(message)
        let der: [UInt8]? = signing.withContext { context in
            var signature = [UInt8](repeating: 0, count: 80)
            var length = signature.count
            guard EVP_PKEY_sign(context, &signature, &length, digest, digest.count) == 1 else { return nil }
            return Array(signature.prefix(length))
        } ?? nil
        guard let der, let raw = ECDSASignature.raw(fromDER: der) else { throw openSSLFailure("ES256 signing") }
        return raw
    }

    /// True if `certificate` carries this key's public half.
    public func matches(_ certificate: Certificate) -> Bool {
        let matches = X509_check_private_key(certificate.x509, evpPKey) == 1
        _ = drainOpenSSLErrors()
        return matches
    }
}
