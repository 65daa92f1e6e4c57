import Foundation
internal import COpenSSL
internal import CHeraldShims

/// An X.509 certificate held by OpenSSL.
///
/// `@unchecked Sendable`: the X509 is never modified after creation, and OpenSSL allows concurrent
/// read-only use of one X509 (its cached fields are filled under OpenSSL's own lock).
public final class Certificate: @unchecked Sendable, Equatable, CustomStringConvertible {
    /// The owned `X509 *`, for the TLS layer (`SSL_CTX_use_certificate`). Borrowed: do not free it;
    /// call `X509_up_ref` before handing it to an API that takes ownership.
    package let x509: OpaquePointer

    /// Takes ownership of `x509`.
    init(taking x509: OpaquePointer) { self.x509 = x509 }

    /// Shares `x509` (takes a reference of its own).
    convenience init(retaining x509: OpaquePointer) {
        X509_up_ref(x509)
        self.init(taking: x509)
    }

    deinit { X509_free(x509) }

    /// Loads the first certificate in PEM text (other blocks, such as a private key, are skipped).
    public convenience init(pem: String) throws {
        guard let first = try Certificate.loadAll(pem: pem).first else {
            throw CryptoError.notACertificate(detail: "the text has no 'BEGIN CERTIFICATE' block")
        }
        self.init(retaining: first.x509)
    }

    /// Loads the first certificate of a PEM file.
    public convenience init(pemFile path: String) throws {
        try self.init(pem: pemText(of: try readFileBytes(path)))
    }

    /// Loads a DER certificate.
    public convenience init(der: [UInt8]) throws {
        let x509: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let x509 else { throw CryptoError.notACertificate(detail: drainOpenSSLErrors()) }
        self.init(taking: x509)
    }

    /// Every certificate in PEM text, in order (a chain or bundle). Empty if there is none; throws if a
    /// `BEGIN CERTIFICATE` block is damaged.
    public static func loadAll(pem: String) throws -> [Certificate] {
        var certificates: [Certificate] = []
        try withReadBIO(Array(pem.utf8)) { bio in
            while let x509 = PEM_read_bio_X509(bio, nil, nil, nil) {
                certificates.append(Certificate(taking: x509))
            }
        }
        // The loop always ends on "no start line"; anything else means a damaged block.
        let detail = drainOpenSSLErrors()
        let blocks = pem.components(separatedBy: "-----BEGIN CERTIFICATE-----").count - 1
        if certificates.count < blocks {
            throw CryptoError.notACertificate(detail: "certificate \(certificates.count + 1) of \(blocks) is damaged: \(detail)")
        }
        return certificates
    }

    /// Every certificate in a PEM file.
    public static func loadAll(pemFile path: String) throws -> [Certificate] {
        try loadAll(pem: pemText(of: try readFileBytes(path)))
    }

    // MARK: Export

    /// DER encoding.
    public var der: [UInt8] {
        guard let der = encodeDER({ i2d_X509(x509, $0) }) else {
            preconditionFailure("OpenSSL could not encode a certificate: \(drainOpenSSLErrors())")
        }
        return der
    }

    /// `BEGIN CERTIFICATE` PEM.
    public var pem: String {
        let text = try? withMemoryBIO { bio -> String? in
            PEM_write_bio_X509(bio, x509) == 1 ? memoryBIOString(bio) : nil
        }
        guard let text = text ?? nil else { preconditionFailure("OpenSSL could not write a certificate: \(drainOpenSSLErrors())") }
        return text
    }

    // MARK: Names

    /// The subject in RFC 2253 form, most specific first: `UID=com.example.app,CN=Apple Push Services: ...`.
    public var subject: String { Certificate.rfc2253(X509_get_subject_name(x509)) }

    /// The issuer in RFC 2253 form.
    public var issuer: String { Certificate.rfc2253(X509_get_issuer_name(x509)) }

    /// The subject's `UID=` attribute (OID 0.9.2342.19200300.100.1.1): an APNs certificate's bundle ID.
    public var subjectUID: String? { subjectAttribute(oid: "0.9.2342.19200300.100.1.1") }

    /// The subject's common name (CN).
    public var commonName: String? { subjectAttribute(oid: "2.5.4.3") }

    /// The subject's organizational unit (OU): an APNs certificate's team ID.
    public var organizationalUnit: String? { subjectAttribute(oid: "2.5.4.11") }

    /// The first subject attribute with this OID, as text; nil if absent (or the OID is malformed).
    public func subjectAttribute(oid: String) -> String? {
        guard let name = X509_get_subject_name(x509) else { return nil }
        return try? withASN1Object(oid: oid) { object -> String? in
            let index = X509_NAME_get_index_by_OBJ(name, object, -1)
            guard index >= 0, let entry = X509_NAME_get_entry(name, index),
                  let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
            var utf8: UnsafeMutablePointer<UInt8>?
            let length = ASN1_STRING_to_UTF8(&utf8, data)
            guard length >= 0, let utf8 else { return nil }
            defer { herald_crypto_free(utf8) }
            return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
        } ?? nil
    }

    private static func rfc2253(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        return (try? withMemoryBIO { bio in
            herald_crypto_name_print_rfc2253(bio, name) == 1 ? memoryBIOString(bio) : ""
        }) ?? ""
    }

    // MARK: Validity and identity

    /// Start of the validity period.
    public var notBefore: Date { Certificate.date(X509_get0_notBefore(x509)) }

    /// End of the validity period.
    public var notAfter: Date { Certificate.date(X509_get0_notAfter(x509)) }

    /// True if `now` lies within the validity period.
    public func isValid(at now: Date) -> Bool { notBefore <= now && now <= notAfter }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return Date(timeIntervalSince1970: 0) }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    /// The serial number in lowercase hex.
    public var serialNumberHex: String {
        guard let serial = X509_get0_serialNumber(x509), let bignum = ASN1_INTEGER_to_BN(serial, nil) else { return "" }
        defer { BN_free(bignum) }
        guard let hex = BN_bn2hex(bignum) else { return "" }
        defer { herald_crypto_free(hex) }
        return String(cString: hex).lowercased()
    }

    /// SHA-256 of the DER encoding (what `openssl x509 -fingerprint -sha256` shows).
    public var fingerprintSHA256: [UInt8] { Digest.sha256(der) }

    /// `fingerprintSHA256` as lowercase hex without separators.
    public var fingerprintSHA256Hex: String { hexString(fingerprintSHA256) }

    /// The certified public key.
    public var publicKey: PublicKey { PublicKey(certificate: self) }

    /// True if this certificate's signature verifies with `issuer`'s public key.
    public func isSigned(by issuer: Certificate) -> Bool {
        let key = issuer.publicKey
        let verified = X509_verify(x509, key.evpPKey) == 1
        _ = drainOpenSSLErrors()
        return verified
    }

    // MARK: Extensions

    /// The value of the extension with this OID: the DER bytes inside its `extnValue` OCTET STRING
    /// (e.g. `05 00` for an extension whose value is ASN.1 NULL). Nil if absent or the OID is malformed.
    public func extensionValue(oid: String) -> [UInt8]? {
        try? withASN1Object(oid: oid) { object -> [UInt8]? in
            let index = X509_get_ext_by_OBJ(x509, object, -1)
            guard index >= 0, let ext = X509_get_ext(x509, index), let data = X509_EXTENSION_get_data(ext) else { return nil }
            return asn1StringBytes(data)
        } ?? nil
    }

    /// DNS names and IP addresses of the subjectAltName extension, as OpenSSL prints them
    /// (`DNS:localhost`, `IP Address:127.0.0.1`, `IP Address:0:0:0:0:0:0:0:1`).
    public var subjectAlternativeNames: [String] {
        let index = X509_get_ext_by_NID(x509, NID_subject_alt_name, -1)
        guard index >= 0, let ext = X509_get_ext(x509, index) else { return [] }
        let text = (try? withMemoryBIO { bio in X509V3_EXT_print(bio, ext, 0, 0) == 1 ? memoryBIOString(bio) : "" }) ?? ""
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    public var description: String { "Certificate(\(subject), expires \(notAfter))" }

    public static func == (lhs: Certificate, rhs: Certificate) -> Bool {
        X509_cmp(lhs.x509, rhs.x509) == 0
    }
}
