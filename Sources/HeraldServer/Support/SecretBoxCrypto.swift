import Foundation
import HeraldCrypto

/// `ServerCrypto` on HeraldCrypto: SecretBox (AES-256-GCM) for credentials at rest, SHA-256 for key hashes.
public struct SecretBoxCrypto: ServerCrypto {
    private let box: SecretBox

    /// `secretKey` must be 32 bytes; keep it outside the database (`secrets.key` / `secrets.keyFile`).
    public init(secretKey: [UInt8]) throws {
        guard secretKey.count == SecretBox.keySize else {
            throw HeraldConfiguration.Invalid(key: "secrets.key", message: "the secret key must be 32 bytes (got \(secretKey.count)); generate one with `head -c 32 /dev/urandom | base64`")
        }
        box = try SecretBox(key: secretKey)
    }

    public func sha256(_ bytes: [UInt8]) -> [UInt8] { Digest.sha256(bytes) }

    public func randomBytes(_ count: Int) -> [UInt8] { SecureRandom.bytes(count: count) }

    public func seal(_ plaintext: [UInt8]) throws -> [UInt8] { box.seal(plaintext) }

    public func open(_ sealed: [UInt8]) throws -> [UInt8] {
        do { return try box.open(sealed) } catch {
            throw HeraldConfiguration.Invalid(key: "secrets.key", message: "a stored credential does not open with this secret key (was the key changed?)")
        }
    }
}
