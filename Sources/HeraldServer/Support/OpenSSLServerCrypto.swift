import Foundation
internal import COpenSSL

/// Interim `ServerCrypto` on OpenSSL's EVP API, until HeraldCrypto's SecretBox lands and replaces it.
public struct OpenSSLServerCrypto: ServerCrypto {
    private let key: [UInt8]

    /// What went wrong sealing or opening a secret.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// `secretKey` must be 32 bytes (AES-256); keep it outside the database (`secrets.keyFile`).
    public init(secretKey: [UInt8]) throws {
        guard secretKey.count == 32 else {
            throw Failure(description: "the secret key must be 32 bytes (got \(secretKey.count)); generate one with `head -c 32 /dev/urandom | base64`.")
        }
        key = secretKey
    }

    public func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        bytes.withUnsafeBytes { input in
            _ = EVP_Digest(input.baseAddress, input.count, &out, &length, EVP_sha256(), nil)
        }
        return out
    }

    public func randomBytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        if RAND_bytes(&out, Int32(count)) != 1 {
            // Never fall back to a weak source: SystemRandomNumberGenerator reads getrandom(2).
            var rng = SystemRandomNumberGenerator()
            for i in out.indices { out[i] = UInt8.random(in: 0...255, using: &rng) }
        }
        return out
    }

    public func seal(_ plaintext: [UInt8]) throws -> [UInt8] {
        let nonce = randomBytes(12)
        guard let ctx = EVP_CIPHER_CTX_new() else { throw Failure(description: "out of memory") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var cipher = [UInt8](repeating: 0, count: plaintext.count + 16)
        var tag = [UInt8](repeating: 0, count: 16)
        var n: Int32 = 0, total: Int32 = 0
        guard EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1,
              EVP_EncryptUpdate(ctx, &cipher, &n, plaintext, Int32(plaintext.count)) == 1 else {
            throw Failure(description: "encryption failed")
        }
        total = n
        let finalOK = cipher.withUnsafeMutableBufferPointer { EVP_EncryptFinal_ex(ctx, $0.baseAddress! + Int(total), &n) }
        guard finalOK == 1, EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1 else {
            throw Failure(description: "encryption failed")
        }
        total += n
        return nonce + cipher[0..<Int(total)] + tag
    }

    public func open(_ sealed: [UInt8]) throws -> [UInt8] {
        guard sealed.count >= 28 else { throw Failure(description: "sealed secret is truncated") }
        let nonce = Array(sealed[0..<12])
        let body = Array(sealed[12..<(sealed.count - 16)])
        var tag = Array(sealed[(sealed.count - 16)...])
        guard let ctx = EVP_CIPHER_CTX_new() else { throw Failure(description: "out of memory") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var plain = [UInt8](repeating: 0, count: body.count + 16)
        var n: Int32 = 0
        guard EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1,
              EVP_DecryptUpdate(ctx, &plain, &n, body, Int32(body.count)) == 1,
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1 else {
            throw Failure(description: "decryption failed")
        }
        let total = n
        let ok = plain.withUnsafeMutableBufferPointer { EVP_DecryptFinal_ex(ctx, $0.baseAddress! + Int(total), &n) }
        guard ok > 0 else {
            throw Failure(description: "the sealed secret does not match the server's secret key (was secrets.keyFile changed?)")
        }
        return Array(plain[0..<Int(total + n)])
    }
}
