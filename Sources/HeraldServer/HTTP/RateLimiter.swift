import Foundation
import Synchronization

/// Token buckets keyed by caller. `rate` tokens per second refill a bucket of `burst` tokens.
final class RateLimiter: Sendable {
    private struct Bucket { var tokens: Double; var updated: Date }
    private let buckets = Mutex<[String: Bucket]>([:])
    let rate: Double
    let burst: Double

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
    }

    /// Takes one token; returns nil when allowed, or the seconds until a token is available. The key is
    /// built only when limiting is on (a client's joins its key id and address: a string per request).
    func take(_ key: @autoclosure () -> String, now: Date) -> Double? {
        guard rate > 0 else { return nil }
        let key = key()
        return buckets.withLock { all in
            var b = all[key] ?? Bucket(tokens: burst, updated: now)
            b.tokens = min(burst, b.tokens + max(0, now.timeIntervalSince(b.updated)) * rate)
            b.updated = now
            defer {
                all[key] = b
                if all.count > 50_000 { all = all.filter { $0.value.tokens < burst } }
            }
            if b.tokens >= 1 { b.tokens -= 1; return nil }
            return (1 - b.tokens) / rate
        }
    }
}
