internal import COpenSSL

/// Conversions between the two encodings of an ECDSA P-256 signature: raw `r||s` (64 bytes, what JWS
/// and APNs clients emit) and ASN.1 DER `SEQUENCE { INTEGER r, INTEGER s }` (what OpenSSL and Java produce).
public enum ECDSASignature {
    /// Size of a raw P-256 signature.
    public static let rawSize = 64

    /// Converts a DER signature to raw `r||s`; nil if it is not a valid DER ECDSA signature for P-256.
    public static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        let sig: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let sig else { _ = drainOpenSSLErrors(); return nil }
        defer { ECDSA_SIG_free(sig) }
        guard let canonical = encodeDER({ i2d_ECDSA_SIG(sig, $0) }), canonical == der else { return nil }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(sig, &r, &s)
        guard let r, let s else { return nil }
        var out = [UInt8](repeating: 0, count: rawSize)
        let ok = out.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, 32) == 32 && BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32
        }
        return ok ? out : nil
    }

    /// Converts a raw 64-byte `r||s` signature to DER; nil if it is not 64 bytes.
    public static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == rawSize, let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        let (r, s) = raw.withUnsafeBufferPointer { buffer in
            (BN_bin2bn(buffer.baseAddress, 32, nil), BN_bin2bn(buffer.baseAddress! + 32, 32, nil))
        }
        guard let r, let s, ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        return encodeDER { i2d_ECDSA_SIG(sig, $0) }
    }
}
