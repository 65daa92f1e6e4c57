import Foundation
internal import COpenSSL

/// A certificate authority for local use: it signs the simulator's TLS server certificate and APNs-style
/// client certificates, so that certificate authentication can be tested end to end on one machine.
///
/// Sendable: an immutable struct of Sendable parts.
public struct CertificateAuthority: Sendable {
    /// The kind of key a new certificate gets.
    public enum KeyType: Sendable, Equatable {
        case p256
        case rsa(bits: Int)

        func generate() throws -> PrivateKey {
            switch self {
            case .p256: return try PrivateKey.generateP256()
            case .rsa(let bits): return try PrivateKey.generateRSA(bits: bits)
            }
        }
    }

    /// The CA certificate and its key.
    public let identity: CertificateIdentity

    /// The CA certificate: what clients and servers add to their trust store.
    public var certificate: Certificate { identity.certificate }

    /// Uses an existing CA (e.g. one saved earlier with `identity.pem()`).
    public init(identity: CertificateIdentity) {
        self.identity = identity
    }

    /// Seconds in a day, for validity periods.
    public static let day: TimeInterval = 86_400

    /// Makes a new self-signed CA, valid from `now` for `validity` (10 years by default).
    public static func makeSelfSigned(commonName: String = "Herald Local CA", organization: String = "Herald",
                                      keyType: KeyType = .p256, now: Date,
                                      validity: TimeInterval = 3650 * day) throws -> CertificateAuthority {
        let key = try keyType.generate()
        var builder = CertificateBuilder(subject: [("O", organization), ("CN", commonName)],
                                         notBefore: now, notAfter: now + validity)
        builder.extensions = [
            (NID_basic_constraints, "critical,CA:TRUE"),
            (NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
        ]
        let certificate = try builder.sign(subjectKey: key.evpPKey, issuer: nil, signer: key)
        return CertificateAuthority(identity: try CertificateIdentity(privateKey: key, certificate: certificate))
    }

    /// Issues a TLS server certificate for `dnsNames` and `ipAddresses` (both go in subjectAltName).
    /// - Parameter key: the server's key; a new one of `keyType` if nil.
    public func issueServerCertificate(dnsNames: [String] = ["localhost"], ipAddresses: [String] = ["127.0.0.1", "::1"],
                                       commonName: String? = nil, key: PrivateKey? = nil, keyType: KeyType = .p256,
                                       now: Date, validity: TimeInterval = 825 * day) throws -> CertificateIdentity {
        let names = dnsNames.map { "DNS:\($0)" } + ipAddresses.map { "IP:\($0)" }
        guard !names.isEmpty else {
            throw CryptoError.invalidArgument("a server certificate needs at least one DNS name or IP address")
        }
        let serverKey = try key ?? keyType.generate()
        var builder = CertificateBuilder(subject: [("CN", commonName ?? dnsNames.first ?? ipAddresses[0])],
                                         notBefore: now, notAfter: now + validity)
        builder.extensions = [
            (NID_basic_constraints, "critical,CA:FALSE"),
            (NID_key_usage, "critical,digitalSignature,keyEncipherment"),
            (NID_ext_key_usage, "serverAuth"),
            (NID_subject_alt_name, names.joined(separator: ",")),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
        ]
        return try issue(builder, key: serverKey)
    }

    /// Issues an APNs-style client certificate: subject `UID=<bundleID>, CN=Apple Push Services: <bundleID>,
    /// OU=<teamID>`, the topics extension (1.2.840.113635.100.6.3.6) and one environment extension per
    /// environment (1.2.840.113635.100.6.3.1 sandbox, …6.3.2 production, value ASN.1 NULL).
    /// `APNsCertificateInfo` reads all of it back.
    /// - Parameters:
    ///   - topics: nil gives the universal set: the app, `.voip` and `.complication`.
    ///   - key: the client's key; a new one of `keyType` if nil (Apple issues RSA 2048, P-256 is faster).
    public func issueAPNsClientCertificate(bundleID: String, teamID: String,
                                           topics: [APNsCertificateInfo.Topic]? = nil,
                                           environments: APNsCertificateInfo.Environments = .both,
                                           key: PrivateKey? = nil, keyType: KeyType = .p256,
                                           now: Date, validity: TimeInterval = 365 * day) throws -> CertificateIdentity {
        guard !bundleID.isEmpty, !teamID.isEmpty else {
            throw CryptoError.invalidArgument("an APNs certificate needs a bundle ID and a team ID")
        }
        let clientKey = try key ?? keyType.generate()
        var builder = CertificateBuilder(
            subject: [("UID", bundleID), ("CN", "Apple Push Services: \(bundleID)"), ("OU", teamID), ("C", "US")],
            notBefore: now, notAfter: now + validity)
        builder.extensions = [
            (NID_basic_constraints, "critical,CA:FALSE"),
            (NID_key_usage, "critical,digitalSignature"),
            (NID_ext_key_usage, "clientAuth"),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
        ]
        let topicList = topics ?? APNsCertificateInfo.Topic.standard(bundleID: bundleID)
        if !topicList.isEmpty {
            builder.rawExtensions.append((APNsCertificateInfo.topicsOID, APNsCertificateInfo.encodeTopics(topicList), false))
        }
        if environments.contains(.sandbox) { builder.rawExtensions.append((APNsCertificateInfo.sandboxOID, DER.null, false)) }
        if environments.contains(.production) { builder.rawExtensions.append((APNsCertificateInfo.productionOID, DER.null, false)) }
        return try issue(builder, key: clientKey)
    }

    private func issue(_ builder: CertificateBuilder, key: PrivateKey) throws -> CertificateIdentity {
        let certificate = try builder.sign(subjectKey: key.evpPKey, issuer: certificate, signer: identity.privateKey)
        return try CertificateIdentity(privateKey: key, certificate: certificate, chain: [self.certificate])
    }
}
