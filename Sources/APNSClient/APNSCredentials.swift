import Foundation
import HeraldCrypto
import HeraldIO

/// How a provider proves itself to APNs.
public enum APNSCredentials: Sendable {
    /// Token auth: a `.p8` signing key with its key id and team id. One JWT per (team, key), shared
    /// by every connection.
    case token(APNSSigningKey)
    /// Certificate auth: the app's push certificate and key, presented in the TLS handshake.
    case certificate(CertificateIdentity)

    /// Loads a `.p12` (PKCS#12) certificate with its passphrase.
    public static func certificate(p12File path: String, passphrase: String) throws -> APNSCredentials {
        .certificate(try PKCS12.load(file: path, passphrase: passphrase))
    }

    /// Loads a PEM certificate and key; one file may hold both (the seeds' `ck.pem`), and the key may be
    /// encrypted with `passphrase`.
    public static func certificate(pemFile: String, keyFile: String? = nil, passphrase: String? = nil) throws -> APNSCredentials {
        .certificate(try CertificateIdentity(certificateFile: pemFile, privateKeyFile: keyFile, passphrase: passphrase))
    }

    var teamID: String? {
        if case let .token(key) = self { return key.teamID }
        return nil
    }
}

/// A `.p8` key as Apple hands it out, with the ids that name it.
public struct APNSSigningKey: Sendable {
    public let key: PrivateKey
    public let keyID: String
    public let teamID: String

    public init(key: PrivateKey, keyID: String, teamID: String) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
    }

    /// Reads `AuthKey_<KEYID>.p8`.
    public init(p8File path: String, keyID: String, teamID: String) throws {
        try self.init(key: PrivateKey(pemFile: path), keyID: keyID, teamID: teamID)
    }
}

