internal import COpenSSL

/// The kind of an asymmetric key, as far as Herald cares.
public enum KeyAlgorithm: Sendable, Equatable, CustomStringConvertible {
    /// An elliptic-curve key; `curve` is OpenSSL's name ("prime256v1" for P-256).
    case ec(curve: String)
    case rsa(bits: Int)
    case other(String)

    /// True for EC keys on P-256 (prime256v1 / secp256r1), the only curve ES256 and APNs accept.
    public var isP256: Bool {
        if case .ec(let curve) = self { return ["prime256v1", "P-256", "secp256r1"].contains(curve) }
        return false
    }

    public var description: String {
        switch self {
        case .ec(let curve): return isP256 ? "EC P-256" : "EC \(curve)"
        case .rsa(let bits): return "RSA \(bits)-bit"
        case .other(let name): return name
        }
    }

    init(of pkey: OpaquePointer) {
        if EVP_PKEY_is_a(pkey, "EC") == 1 {
            var buffer = [CChar](repeating: 0, count: 64)
            var length = 0
            if EVP_PKEY_get_group_name(pkey, &buffer, buffer.count, &length) == 1 {
                self = .ec(curve: buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
            } else {
                self = .ec(curve: "unknown curve")
            }
        } else if EVP_PKEY_is_a(pkey, "RSA") == 1 {
            self = .rsa(bits: Int(EVP_PKEY_get_bits(pkey)))
        } else if let name = EVP_PKEY_get0_type_name(pkey) {
            self = .other(String(cString: name))
        } else {
            self = .other("unknown key type")
        }
    }
}
