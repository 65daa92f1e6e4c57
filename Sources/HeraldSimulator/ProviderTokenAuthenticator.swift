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
        /// Bumped when keys change, so a verdict computed against old keys is not cached.
        var generation = 0
    }

    private let state = Mutex(State())
    /// `State.generation`, readable without the lock: connections compare it with the generation their
    /// own cached verdict was made under.
    private let generationCounter = Atomic<Int>(0)
    var generation: Int { generationCounter.load(ordering: .acquiring) }
    /// Bounds the cache; when full it is cleared (tokens are long-lived, so misses stay rare).
    private let cacheLimit: Int

    init(cacheLimit: Int = 10_000) { self.cacheLimit = cacheLimit }

    func register(_ key: SigningKey) {
        state.withLock {
            $0.keys[key.keyID] = key
            $0.verdicts = [:]
            $0.generation += 1
            generationCounter.store($0.generation, ordering: .releasing)
        }
    }

    @discardableResult
    func remove(keyID: String) -> Bool {
        state.withLock {
            $0.verdicts = [:]
            $0.generation += 1
            generationCounter.store($0.generation, ordering: .releasing)
            return $0.keys.removeValue(forKey: keyID) != nil
        }
    }

    var keys: [SigningKey] { state.withLock { Array($0.keys.values) }.sorted { $0.keyID < $1.keyID } }

    /// The verified claims of `token`, or nil when it is malformed, not ES256, names an unknown key or
    /// another team, or its signature does not verify. Parsing is HeraldCrypto's lenient `JWT`
    /// (base64url or padded base64; raw or DER signature).
    func verify(_ token: String) -> VerifiedToken? {
        let (cached, generation): (VerifiedToken??, Int) = state.withLock { ($0.verdicts[token], $0.generation) }
        if let cached { return cached }
        var verdict: VerifiedToken?
        if let jwt = try? JWT(parsing: token), jwt.header.alg == "ES256", let kid = jwt.header.kid,
           let key = state.withLock({ $0.keys[kid] }), jwt.claims.iss == key.teamID, let issuedAt = jwt.claims.issuedAt,
           (try? jwt.verify(using: key.publicKey)) != nil {
            verdict = VerifiedToken(keyID: key.keyID, teamID: key.teamID, issuedAt: issuedAt,
                                    key: KeyScope(bundleIDs: key.bundleIDs, environment: key.environment))
        }
        state.withLock { s in
            guard s.generation == generation else { return }
            if s.verdicts.count >= cacheLimit { s.verdicts = [:] }
            s.verdicts[token] = verdict
        }
        return verdict
    }
}
