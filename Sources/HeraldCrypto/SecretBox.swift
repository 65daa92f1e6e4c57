internal import COpenSSL

/// Authenticated encryption for secrets stored at rest (APNs keys and certificate passphrases in the
/// database): AES-256-GCM with a random 96-bit nonce per message.
///
/// Sealed layout: `nonce (12) || ciphertext || tag (16)`. Random nonces are safe for up to about 2^32
/// messages under one key, far beyond what a credential store seals.
///
/// Sendable: an immutable struct holding only the key bytes.
public struct SecretBox: Sendable {
    public static let keySize = 32
    public static let nonceSize = 12
    public static let tagSize = 16

    private let key: [UInt8]

    /// A box with a 32-byte key.
    /// - Throws: `CryptoError.invalidArgument` for any other key length.
    public init(key: [UInt8]) throws {
        guard key.count == SecretBox.keySize else {
            throw CryptoError.invalidArgument("a SecretBox key is \(SecretBox.keySize) bytes, got \(key.count)")
        }
        self.key = key
    }

    /// A box whose key is derived from a server secret with HKDF-SHA256 (salt "herald.secretbox.v1",
    /// info `purpose`). The secret must be high-entropy (e.g. `SecureRandom.hexString(byteCount: 32)`);
    /// for a human-chosen passphrase derive the key with `KeyDerivation.pbkdf2SHA256` and use `init(key:)`.
    /// - Throws: `CryptoError.invalidArgument` for an empty secret.
    public init(secret: String, purpose: String = "credentials") throws {
        guard !secret.isEmpty else {
            throw CryptoError.invalidArgument("the server secret is empty: set one (e.g. 64 random hex characters)")
        }
        try self.init(key: KeyDerivation.hkdfSHA256(secret: Array(secret.utf8), salt: Array("herald.secretbox.v1".utf8),
                                                   info: Array(purpose.utf8), length: SecretBox.keySize))
    }

    /// Encrypts and authenticates `plaintext`; `associatedData` is authenticated but not stored (bind a
    /// record's ID here so a sealed value cannot be moved to another record).
    public func seal(_ plaintext: [UInt8], associatedData: [UInt8] = []) -> [UInt8] {
        let nonce = SecureRandom.bytes(count: SecretBox.nonceSize)
        guard let sealed = try? crypt(encrypt: true, nonce: nonce, input: plaintext, tag: nil, associatedData: associatedData) else {
            preconditionFailure("AES-256-GCM encryption failed: \(drainOpenSSLErrors())")
        }
        return nonce + sealed.output + sealed.tag
    }

    /// Seals a string's UTF-8 bytes.
    public func seal(_ plaintext: String, associatedData: [UInt8] = []) -> [UInt8] {
        seal(Array(plaintext.utf8), associatedData: associatedData)
    }

    /// Decrypts what `seal` produced.
    /// - Throws: `CryptoError.authenticationFailed` if the data, the associated data or the key differ.
    public func open(_ sealed: [UInt8], associatedData: [UInt8] = []) throws -> [UInt8] {
        guard sealed.count >= SecretBox.nonceSize + SecretBox.tagSize else { throw CryptoError.authenticationFailed }
        let nonce = Array(sealed.prefix(SecretBox.nonceSize))
        let ciphertext = Array(sealed[SecretBox.nonceSize..<(sealed.count - SecretBox.tagSize)])
        let tag = Array(sealed.suffix(SecretBox.tagSize))
        return try crypt(encrypt: false, nonce: nonce, input: ciphertext, tag: tag, associatedData: associatedData).output
    }

    /// Opens a sealed UTF-8 string.
    public func openString(_ sealed: [UInt8], associatedData: [UInt8] = []) throws -> String {
        let bytes = try open(sealed, associatedData: associatedData)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw CryptoError.authenticationFailed }
        return text
    }

    private func crypt(encrypt: Bool, nonce: [UInt8], input: [UInt8], tag: [UInt8]?,
                       associatedData: [UInt8]) throws -> (output: [UInt8], tag: [UInt8]) {
        guard let context = EVP_CIPHER_CTX_new() else { throw openSSLFailure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        let cipher = FetchedAlgorithms.shared.aes256GCM
        let initialised = encrypt
            ? EVP_EncryptInit_ex2(context, cipher, key, nonce, nil)
            : EVP_DecryptInit_ex2(context, cipher, key, nonce, nil)
        guard initialised == 1 else { throw openSSLFailure("AES-256-GCM init") }

        var length: Int32 = 0
        if !associatedData.isEmpty {
            let ok = encrypt ? EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count))
                : EVP_DecryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count))
            guard ok == 1 else { throw openSSLFailure("AES-256-GCM associated data") }
        }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var produced: Int32 = 0
        if !input.isEmpty {
            let ok = encrypt ? EVP_EncryptUpdate(context, &output, &produced, input, Int32(input.count))
                : EVP_DecryptUpdate(context, &output, &produced, input, Int32(input.count))
            guard ok == 1 else { throw openSSLFailure("AES-256-GCM update") }
        }
        var outputTag = [UInt8](repeating: 0, count: SecretBox.tagSize)
        var finalLength: Int32 = 0
        if encrypt {
            guard output.withUnsafeMutableBufferPointer({ EVP_EncryptFinal_ex(context, $0.baseAddress! + Int(produced), &finalLength) }) == 1,
                  EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(SecretBox.tagSize), &outputTag) == 1 else {
                throw openSSLFailure("AES-256-GCM finish")
            }
        } else {
            var expected = tag ?? []
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(expected.count), &expected) == 1 else {
                throw openSSLFailure("AES-256-GCM tag")
            }
            let verified = output.withUnsafeMutableBufferPointer {
                EVP_DecryptFinal_ex(context, $0.baseAddress! + Int(produced), &finalLength)
            }
            guard verified == 1 else {
                _ = drainOpenSSLErrors()
                throw CryptoError.authenticationFailed
            }
        }
        return (Array(output.prefix(Int(produced + finalLength))), outputTag)
    }
}
