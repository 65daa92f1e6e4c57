import Foundation
import HeraldCrypto
import Synchronization

/// Verifies provider tokens (JWT, ES256) against the registered keys. A token string is verified once
/// and the verdict cached: connections reuse one token for 20–60 minutes, so the signature check leaves
/// the hot path. Time-dependent rules (`iat` age) are applied per request by the caller.
final class ProviderTokenAuthenticator: Sendable {
    struct VerifiedToken: Equatable {
        var keyID: String
        var teamID: String
        var issuedAt: Date
        var key: KeyScope
    }

    struct KeyScope: Equatable {
        var bundleIDs: [String]?
        var environment: PushEnvironment?
    }

    private struct State {
        var keys: [String: SigningKey] = [:]
        var verdicts: [String: VerifiedToken?] = [:]
    }

    private let state = Mutex(State())
    /// Bounds the cache; when full it is cleared (tokens are long-lived, so misses stay rare).
    private let cacheLimit: Int

    init(cacheLimit: Int = 10_000) { self.cacheLimit = cacheLimit }

    func register(_ key: SigningKey) {
        state.withLock {
            $0.keys[key.keyID] = key
            $0.verdicts = [:]
        }
    }

    @discardableResult
    func remove(keyID: String) -> Bool {
        state.withLock {
            $0.verdicts = [:]
            return $0.keys.removeValue(forKey: keyID) != nil
        }
    }

    var keys: [SigningKey] { state.withLock { Array($0.keys.values) }.sorted { $0.keyID < $1.keyID } }

    /// The verified claims of `token`, or nil when it is malformed, names an unknown key or team, or
    /// its signature does not verify.
    func verify(_ token: String) -> VerifiedToken? {
        let (cached, key): (VerifiedToken??, SigningKey?) = state.withLock { s in
            if let hit = s.verdicts[token] { return (hit, nil) }
            guard let kid = ProviderToken.keyID(of: token) else { return (.some(nil), nil) }
            return (nil, s.keys[kid])
        }
        if let cached { return cached }
        let verdict = key.flatMap { Self.check(token, with: $0) }
        state.withLock { s in
            if s.verdicts.count >= cacheLimit { s.verdicts = [:] }
            s.verdicts[token] = verdict
        }
        return verdict
    }

    private static func check(_ token: String, with key: SigningKey) -> VerifiedToken? {
        guard let parsed = ProviderToken(token), parsed.algorithm == "ES256", parsed.keyID == key.keyID,
              parsed.issuer == key.teamID,
              key.publicKey.verifyES256(signature: parsed.signature, message: parsed.signingInput) else { return nil }
        return VerifiedToken(keyID: key.keyID, teamID: key.teamID, issuedAt: parsed.issuedAt,
                             key: KeyScope(bundleIDs: key.bundleIDs, environment: key.environment))
    }
}

/// A JWT as APNs reads it, leniently: each part may be base64url or padded standard base64, and the
/// signature may be raw `r||s` or DER (both seen from real clients).
struct ProviderToken {
    var algorithm: String
    var keyID: String
    var issuer: String
    var issuedAt: Date
    var signingInput: ArraySlice<UInt8>
    var signature: [UInt8]

    init?(_ token: String) {
        let bytes = Array(token.utf8)
        let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
        guard dots.count == 2,
              let header = Self.json(bytes[..<dots[0]]),
              let claims = Self.json(bytes[(dots[0] + 1)..<dots[1]]),
              let signature = Base64URL.decode(String(decoding: bytes[(dots[1] + 1)...], as: UTF8.self)),
              let alg = header["alg"] as? String, let kid = header["kid"] as? String,
              let iss = claims["iss"] as? String, let iat = (claims["iat"] as? NSNumber)?.doubleValue
        else { return nil }
        algorithm = alg
        keyID = kid
        issuer = iss
        issuedAt = Date(timeIntervalSince1970: iat)
        signingInput = bytes[..<dots[1]]
        self.signature = signature
    }

    /// Just the `kid`, to find the key before doing any crypto.
    static func keyID(of token: String) -> String? {
        let bytes = Array(token.utf8)
        guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        return json(bytes[..<dot])?["kid"] as? String
    }

    private static func json(_ part: ArraySlice<UInt8>) -> [String: Any]? {
        guard let data = Base64URL.decode(String(decoding: part, as: UTF8.self)) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(data))) as? [String: Any]
    }
}
