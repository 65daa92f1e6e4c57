internal import COpenSSL

/// Cryptographically secure random bytes (OpenSSL's DRBG, seeded from the OS).
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        // RAND_bytes fails only if the OS cannot seed the generator, where no secure fallback exists.
        precondition(RAND_bytes(&out, Int32(count)) == 1, "no secure randomness: \(drainOpenSSLErrors())")
        return out
    }

    /// `byteCount` random bytes as lowercase hex (API keys, secrets).
    public static func hexString(byteCount: Int) -> String { hexString(bytes(count: byteCount)) }

    private static func hexString(_ bytes: [UInt8]) -> String { HeraldCrypto.hexString(bytes) }
}
