/// What went wrong in a HeraldCrypto operation a user can cause (bad files, wrong passphrases, wrong keys).
///
/// Every case's `description` says what is wrong and what to do about it; `detail` carries OpenSSL's own
/// reason where one exists.
public enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The PEM or PKCS#12 data is encrypted and no passphrase was given.
    case passphraseRequired(what: String)
    /// The passphrase does not decrypt the data.
    case wrongPassphrase(what: String)
    /// The input holds no private or public key in a format we read.
    case notAKey(detail: String)
    /// The input holds no X.509 certificate in a format we read.
    case notACertificate(detail: String)
    /// The input is not a PKCS#12 (`.p12`) archive.
    case notPKCS12(detail: String)
    /// The key works, but not for this operation (e.g. ES256 needs an EC key on P-256).
    case unsupportedKey(expected: String, found: String)
    /// The certificate and the private key do not belong together.
    case keyCertificateMismatch
    /// An argument is malformed (wrong length, invalid OID, bad name...).
    case invalidArgument(String)
    /// SecretBox: the sealed data was tampered with, truncated, or sealed with another key.
    case authenticationFailed
    /// A file could not be read.
    case fileUnreadable(path: String, reason: String)
    /// A file could not be written.
    case fileUnwritable(path: String, reason: String)
    /// OpenSSL failed in a way the input does not explain.
    case openSSL(operation: String, detail: String)

    public var description: String {
        switch self {
        case .passphraseRequired(let what):
            return "\(what) is encrypted: supply its passphrase"
        case .wrongPassphrase(let what):
            return "the passphrase does not decrypt \(what): check the passphrase used when it was exported"
        case .notAKey(let detail):
            return "no private or public key found (\(detail)): expected PEM (PKCS#8 .p8, EC/RSA key) or DER"
        case .notACertificate(let detail):
            return "no X.509 certificate found (\(detail)): expected PEM 'BEGIN CERTIFICATE' or DER"
        case .notPKCS12(let detail):
            return "not a PKCS#12 archive (\(detail)): export the certificate with its private key as .p12 from Keychain Access"
        case .unsupportedKey(let expected, let found):
            return "the key is \(found) but \(expected) is required: use an APNs .p8 key or generate a P-256 key"
        case .keyCertificateMismatch:
            return "the private key does not match the certificate: export them together from the same identity"
        case .invalidArgument(let message):
            return message
        case .authenticationFailed:
            return "sealed data failed authentication: it was altered, truncated, or sealed with another secret"
        case .fileUnreadable(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .fileUnwritable(let path, let reason):
            return "cannot write \(path): \(reason)"
        case .openSSL(let operation, let detail):
            return "OpenSSL failed in \(operation): \(detail)"
        }
    }
}
