import Foundation

/// Keys that passed a check in the last `window` seconds, by their SHA-256, so a request does not read
/// the store for its key (that read was a round trip to the store's reader on every request).
///
/// Only successful checks are kept: an unknown or revoked key is looked up every time. A rotation or an
/// app deletion on this node forgets everything at once (`forgetAll`); a key revoked elsewhere (another
/// node of a shared store) works here for at most `window` more seconds. A check that started before a
/// `forgetAll` is not remembered (its answer may predate the revocation). Bounded as `RecentValues` is.
final class KeyVerdictCache: Sendable {
    /// How long a successful check is reused; the longest a key revoked on another node keeps working here.
    static let window: TimeInterval = 2
    static let capacity = 4_096

    private let verdicts = RecentValues<[UInt8], Principal>(window: window, capacity: capacity)

    /// The principal of a key checked less than `window` ago (a clock that went back counts as expired).
    func principal(hash: [UInt8], now: Date) -> Principal? { verdicts.value(for: hash, now: now) }

    var count: Int { verdicts.count }

    /// Where a check starts: pass it to `remember`.
    var generation: UInt64 { verdicts.generation }

    func remember(hash: [UInt8], _ principal: Principal, checkedAt: Date, generation: UInt64) {
        verdicts.remember(principal, for: hash, readAt: checkedAt, generation: generation)
    }

    /// After a key was revoked or deleted here: every key is checked against the store again.
    func forgetAll() { verdicts.forgetAll() }
}
