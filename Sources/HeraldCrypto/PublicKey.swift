internal import COpenSSL

/// A public key held by OpenSSL; verifies ES256 signatures.
///
/// `@unchecked Sendable`: the EVP_PKEY is never modified after creation and OpenSSL allows concurrent
/// read-only use of it; the verification context it caches is guarded by `KeyOperationContext`.
public final class PublicKey: @unchecked Sendable, Equatable {
    /// The owned `EVP_PKEY *`. Borrowed: do not free it.
    package let evpPKey: OpaquePointer
    /// What kind of key this is.
    public let algorithm: KeyAlgorithm
    private let verifying: KeyOperationContext

    init(taking pkey: OpaquePointer) {
        evpPKey = pkey
        algorithm = KeyAlgorithm(of: pkey)
        verifying = KeyOperationContext(pkey: pkey, operation: .verify)
    }

    /// Shares a private key's EVP_PKEY (takes a reference of its own); only its public half is used.
    convenience init(sharing pkey: OpaquePointer) {
        EVP_PKEY_up_ref(pkey)
        self.init(taking: pkey)
    }

    deinit { EVP_PKEY_free(evpPKey) }

    /// Loads a `BEGIN PUBLIC KEY` (SubjectPublicKeyInfo) PEM block; given a certificate PEM instead,
    /// takes the certificate's key.
    public convenience init(pem: String) throws {
        let pkey = try withReadBIO(Array(pem.utf8)) { PEM_read_bio_PUBKEY($0, nil, nil, nil) }
        if let pkey {
            ERR_clear_error()
            self.init(taking: pkey)
            return
        }
        let detail = drainOpenSSLErrors()
        if pem.contains("BEGIN CERTIFICATE") {
            self.init(certificate: try Certificate(pem: pem))
            return
        }
        throw CryptoError.notAKey(detail: pem.contains("PUBLIC KEY") ? detail : "the text has no 'BEGIN PUBLIC KEY' block")
    }

    /// Loads a DER SubjectPublicKeyInfo.
    public convenience init(der: [UInt8]) throws {
        let pkey: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let pkey else { throw CryptoError.notAKey(detail: drainOpenSSLErrors()) }
        self.init(taking: pkey)
    }

    /// The public key a certificate carries.
    public convenience init(certificate: Certificate) {
        guard let pkey = X509_get_pubkey(certificate.x509) else {
            preconditionFailure("a parsed certificate has no public key: \(drainOpenSSLErrors())")
        }
        self.init(taking: pkey)
    }

    /// DER SubjectPublicKeyInfo.
    public var der: [UInt8] {
        guard let der = encodeDER({ i2d_PUBKEY(evpPKey, $0) }) else {
            preconditionFailure("OpenSSL could not encode a public key: \(drainOpenSSLErrors())")
        }
        return der
    }

    /// `BEGIN PUBLIC KEY` PEM.
    public var pem: String {
        let text = try? withMemoryBIO { bio -> String? in
            PEM_write_bio_PUBKEY(bio, evpPKey) == 1 ? memoryBIOString(bio) : nil
        }
        guard let text = text ?? nil else { preconditionFailure("OpenSSL could not write a public key: \(drainOpenSSLErrors())") }
        return text
    }

    /// Verifies an ES256 signature over `message`. Accepts both the raw 64-byte `r||s` form (JWS) and
    /// DER (what Java and OpenSSL produce, and what APNs also accepts).
    ///
    /// Returns false for a malformed or wrong signature, or if this is not a P-256 key. Thread-safe;
    /// concurrent callers do not wait for each other.
    public func verifyES256<M: Collection>(signature: [UInt8], message: M) -> Bool where M.Element == UInt8 {
        guard algorithm.isP256 else { return false }
        let der: [UInt8]
        if signature.count == ECDSASignature.rawSize {
            guard let converted = ECDSASignature.der(fromRaw: signature) else { return false }
            der = converted
        } else {
            der = signature
        }
        let digest = Digest.sha256(message)
        let verified = verifying.withContext { context in
            EVP_PKEY_verify(context, der, der.count, digest, digest.count) == 1
        } ?? false
        if !verified { _ = drainOpenSSLErrors() }
        return verified
    }

    public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool {
        EVP_PKEY_eq(lhs.evpPKey, rhs.evpPKey) == 1
    }
}
