internal import CHeraldShims
internal import COpenSSL

/// Message digests and MACs.
public enum Digest {
    /// SHA-256 of `data` (32 bytes).
    public static func sha256<D: Collection>(_ data: D) -> [UInt8] where D.Element == UInt8 {
        withContiguousBytes(data) { buffer in
            [UInt8](unsafeUninitializedCapacity: 32) { out, count in
                sha256(buffer, into: UnsafeMutableRawBufferPointer(out))
                count = 32
            }
        }
    }

    /// SHA-256 of `data` written into the first 32 bytes of `out`, for callers that hash on a hot path
    /// without allocating (the stable apns-id of every delivery).
    public static func sha256(_ data: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count >= 32, "SHA-256 needs 32 bytes to write into")
        let ok = herald_crypto_sha256(data.baseAddress, data.count, out.baseAddress!.bindMemory(to: UInt8.self, capacity: 32))
        precondition(ok == 1, "SHA-256 failed: \(drainOpenSSLErrors())")
    }

    /// MD5 of `data` (16 bytes). Only for protocols that require it (LeanCloud's `X-LC-Sign`), never for new designs.
    public static func md5<D: Collection>(_ data: D) -> [UInt8] where D.Element == UInt8 {
        withContiguousBytes(data) { buffer in
            var out = [UInt8](repeating: 0, count: 16)
            var length: UInt32 = 0
            let ok = EVP_Digest(buffer.baseAddress, buffer.count, &out, &length, EVP_md5(), nil)
            precondition(ok == 1 && length == 16, "MD5 failed: \(drainOpenSSLErrors())")
            return out
        }
    }

    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    public static func hmacSHA256<K: Collection, M: Collection>(key: K, message: M) -> [UInt8]
    where K.Element == UInt8, M.Element == UInt8 {
        // A zero-length key is legal for HMAC, but OpenSSL wants a non-null key pointer.
        let keyBytes = key.isEmpty ? [0] : Array(key)
        let keyLength = key.isEmpty ? 0 : keyBytes.count
        return keyBytes.withUnsafeBytes { keyBuffer in
            withContiguousBytes(message) { messageBuffer in
                var out = [UInt8](repeating: 0, count: 32)
                var length = 0
                let result = EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil, keyBuffer.baseAddress, keyLength,
                                       messageBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                       messageBuffer.count, &out, out.count, &length)
                precondition(result != nil && length == 32, "HMAC-SHA256 failed: \(drainOpenSSLErrors())")
                return out
            }
        }
    }
}

/// Gives `body` contiguous bytes of any byte collection without copying when it already is contiguous.
func withContiguousBytes<D: Collection, R>(_ data: D, _ body: (UnsafeRawBufferPointer) -> R) -> R where D.Element == UInt8 {
    if let result = data.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
        return result
    }
    return Array(data).withUnsafeBytes(body)
}
