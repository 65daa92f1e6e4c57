import Foundation
import Synchronization
import HeraldCrypto

/// The provider token (JWT) for one signing key, shared by every connection that uses the key.
///
/// Apple's rules: a token is valid for an hour; a new one may be presented at most every 20 minutes.
/// So the token is renewed once it is `refreshAfter` old (50 minutes, like pushy), never earlier than
/// `minimumAge` (20 minutes), except when APNs itself says the token expired: then it is renewed once
/// (concurrent failures of the same token renew it only once).
public final class ProviderTokenSource: Sendable {
    public let signingKey: APNSSigningKey
    private let now: @Sendable () -> Date
    private let refreshAfter: TimeInterval
    private let minimumAge: TimeInterval
    private let state = Mutex<(token: String, issuedAt: Date)?>(nil)

    public init(signingKey: APNSSigningKey, refreshAfter: TimeInterval = 50 * 60, minimumAge: TimeInterval = 20 * 60,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.signingKey = signingKey
        self.refreshAfter = refreshAfter
        self.minimumAge = minimumAge
        self.now = now
    }

    /// The `authorization` header value: `bearer <jwt>`.
    public func authorization() throws -> String { "bearer " + (try token()) }

    /// The current token, signing a new one when there is none or it is due for renewal.
    public func token() throws -> String {
        let t = now()
        return try state.withLock { current in
            if let current, t.timeIntervalSince(current.issuedAt) < refreshAfter { return current.token }
            let fresh = try sign(at: t)
            current = (fresh, t)
            return fresh
        }
    }

    /// APNs answered ExpiredProviderToken for `token`: renew it unless another caller already did.
    /// Returns true when a retry with the new token makes sense.
    @discardableResult
    public func tokenWasRejectedAsExpired(_ token: String) throws -> Bool {
        let t = now()
        return try state.withLock { current in
            guard let c = current else { return true }
            if c.token != token { return true }
            current = (try sign(at: t), t)
            return true
        }
    }

    /// When the current token was issued (nil before the first).
    public var issuedAt: Date? { state.withLock { $0?.issuedAt } }

    private func sign(at date: Date) throws -> String {
        try JWT.apnsProviderToken(keyID: signingKey.keyID, teamID: signingKey.teamID,
                                  issuedAt: Int64(date.timeIntervalSince1970), using: signingKey.key)
    }
}
