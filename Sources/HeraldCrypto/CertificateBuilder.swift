import Foundation
internal import COpenSSL
internal import CHeraldShims

/// Assembles and signs one X.509 v3 certificate.
struct CertificateBuilder {
    /// Subject attributes in the order they are written, by OpenSSL short name ("UID", "CN", "OU", "O", "C").
    var subject: [(field: String, value: String)]
    var notBefore: Date
    var notAfter: Date
    /// Extensions in OpenSSL config syntax, by NID.
    var extensions: [(nid: Int32, value: String)] = []
    /// Extensions given as OID and raw DER value.
    var rawExtensions: [(oid: String, value: [UInt8], critical: Bool)] = []

    /// Signs a certificate for `subjectKey` with `signer`; `issuer` nil makes it self-signed.
    func sign(subjectKey: OpaquePointer, issuer: Certificate?, signer: PrivateKey) throws -> Certificate {
        guard let x509 = X509_new() else { throw openSSLFailure("X509_new") }
        let certificate = Certificate(taking: x509)
        guard X509_set_version(x509, 2) == 1 else { throw openSSLFailure("X509_set_version") }
        try setSerialNumber(x509)
        guard ASN1_TIME_set(X509_getm_notBefore(x509), time_t(notBefore.timeIntervalSince1970)) != nil,
              ASN1_TIME_set(X509_getm_notAfter(x509), time_t(notAfter.timeIntervalSince1970)) != nil else {
            throw openSSLFailure("setting the validity period")
        }
        try setSubject(x509)
        let issuerName = issuer.map { X509_get_subject_name($0.x509) } ?? X509_get_subject_name(x509)
        guard X509_set_issuer_name(x509, issuerName) == 1, X509_set_pubkey(x509, subjectKey) == 1 else {
            throw openSSLFailure("setting issuer and public key")
        }
        for (nid, value) in extensions where herald_crypto_x509_add_ext(x509, issuer?.x509 ?? x509, nid, value) != 1 {
            throw CryptoError.openSSL(operation: "adding extension '\(value)'", detail: drainOpenSSLErrors())
        }
        for raw in rawExtensions { try addRawExtension(x509, raw.oid, raw.value, critical: raw.critical) }
        guard X509_sign(x509, signer.evpPKey, FetchedAlgorithms.shared.sha256) > 0 else { throw openSSLFailure("X509_sign") }
        return certificate
    }

    /// 128 random bits with the top bit clear: positive, unique enough, within RFC 5280's 20 octets.
    private func setSerialNumber(_ x509: OpaquePointer) throws {
        var bytes = SecureRandom.bytes(count: 16)
        bytes[0] = bytes[0] & 0x7f | 0x01 << 6
        guard let bignum = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw openSSLFailure("BN_bin2bn") }
        defer { BN_free(bignum) }
        guard BN_to_ASN1_INTEGER(bignum, X509_get_serialNumber(x509)) != nil else { throw openSSLFailure("setting the serial") }
    }

    private func setSubject(_ x509: OpaquePointer) throws {
        guard let name = X509_NAME_new() else { throw openSSLFailure("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        for (field, value) in subject {
            let bytes = Array(value.utf8)
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1 else {
                throw CryptoError.invalidArgument("cannot put \(field)=\(value) in a certificate subject: \(drainOpenSSLErrors())")
            }
        }
        guard X509_set_subject_name(x509, name) == 1 else { throw openSSLFailure("X509_set_subject_name") }
    }

    private func addRawExtension(_ x509: OpaquePointer, _ oid: String, _ value: [UInt8], critical: Bool) throws {
        try withASN1Object(oid: oid) { object in
            guard let octets = ASN1_OCTET_STRING_new() else { throw openSSLFailure("ASN1_OCTET_STRING_new") }
            defer { ASN1_OCTET_STRING_free(octets) }
            guard ASN1_OCTET_STRING_set(octets, value, Int32(value.count)) == 1,
                  let ext = X509_EXTENSION_create_by_OBJ(nil, object, critical ? 1 : 0, octets) else {
                throw openSSLFailure("creating extension \(oid)")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else { throw openSSLFailure("adding extension \(oid)") }
        }
    }
}
