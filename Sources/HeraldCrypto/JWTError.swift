/// Why a JSON Web Token was refused.
public enum JWTError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not `header.claims.signature` with base64 JSON objects in the first two parts.
    case malformed(String)
    /// The header names an algorithm other than ES256 (APNs accepts nothing else).
    case unsupportedAlgorithm(String)
    /// The signature does not verify with the given key.
    case badSignature
    /// The key cannot make or check ES256 signatures.
    case unusableKey(String)

    public var description: String {
        switch self {
        case .malformed(let reason):
            return "malformed JWT (\(reason)): expected base64url header.claims.signature"
        case .unsupportedAlgorithm(let alg):
            return "JWT algorithm '\(alg)' is not supported: APNs tokens must use ES256"
        case .badSignature:
            return "the JWT signature does not verify: check the key ID and that the token was signed with that .p8 key"
        case .unusableKey(let found):
            return "the key (\(found)) cannot be used for ES256: use an EC P-256 key (an APNs .p8 key)"
        }
    }
}
