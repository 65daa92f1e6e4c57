import Foundation
import HeraldCrypto

/// The few cryptographic operations the service needs, behind one seam (tests and other deployments may
/// inject their own). `SecretBoxCrypto` implements it on HeraldCrypto. The stable apns-id of each delivery is
/// not behind it: it must be SHA-256 whatever is injected (the API shows past ones), and it hashes from stack
/// memory (`stableAPNsID`).
public protocol ServerCrypto: Sendable {
    func sha256(_ bytes: [UInt8]) -> [UInt8]
    func randomBytes(_ count: Int) -> [UInt8]
    /// Encrypts with the server's secret key (AES-256-GCM); the result carries its nonce and tag.
    func seal(_ plaintext: [UInt8]) throws -> [UInt8]
    /// Reverses `seal`; throws when the data was altered or sealed under another key.
    func open(_ sealed: [UInt8]) throws -> [UInt8]
}

/// Compares without an early exit, so timing says nothing about where two secrets differ.
func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool { ConstantTime.equals(a, b) }
