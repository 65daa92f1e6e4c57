import Foundation

/// The few cryptographic operations the service needs, behind one seam so the implementation can move to
/// HeraldCrypto (SecretBox, SHA-256, constant-time compare) without touching callers.
public protocol ServerCrypto: Sendable {
    func sha256(_ bytes: [UInt8]) -> [UInt8]
    func randomBytes(_ count: Int) -> [UInt8]
    /// Encrypts with the server's secret key (AES-256-GCM); the result carries its nonce and tag.
    func seal(_ plaintext: [UInt8]) throws -> [UInt8]
    /// Reverses `seal`; throws when the data was altered or sealed under another key.
    func open(_ sealed: [UInt8]) throws -> [UInt8]
}

/// Compares without an early exit, so timing says nothing about where two secrets differ.
func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var diff: UInt8 = 0
    for i in a.indices { diff |= a[i] ^ b[i] }
    return diff == 0
}

extension Array where Element == UInt8 {
    var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8](); out.reserveCapacity(count * 2)
        for b in self { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0xf)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
