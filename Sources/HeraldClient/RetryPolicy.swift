import Foundation

/// Also reachable as `HeraldClient.RetryPolicy`, for files that import another module with a `RetryPolicy`
/// (APNSCore, APNSClient, HeraldSimulator): the module name cannot qualify it, the actor's can.
public typealias RetryPolicy = HeraldClient.RetryPolicy

extension HeraldClient {
    /// How HeraldClient retries a request that failed for a reason that may pass: no network, a refused
    /// connection, a timeout, a 5xx, or a 429.
    ///
    /// Delays grow exponentially from ``initialDelay`` up to ``maxDelay``. A `Retry-After` header replaces
    /// the computed delay; one longer than ``maxRetryAfter`` ends the attempts with
    /// ``HeraldClientError/rateLimited(retryAfter:)`` instead of keeping the app waiting.
    public struct RetryPolicy: Sendable, Equatable {
        /// Attempts in total, the first one included (1 means no retry).
        public var maxAttempts: Int
        /// The delay before the second attempt, in seconds.
        public var initialDelay: TimeInterval
        /// The longest computed delay, in seconds.
        public var maxDelay: TimeInterval
        /// The factor applied to the delay after each failed attempt.
        public var multiplier: Double
        /// The longest `Retry-After` the client honours by sleeping, in seconds.
        public var maxRetryAfter: TimeInterval
        /// Up to this fraction is taken off each computed delay at random, so a fleet of devices that lost
        /// the server at the same moment does not come back at the same moment (0 = exact delays).
        public var jitter: Double

        public init(maxAttempts: Int = 5, initialDelay: TimeInterval = 1, maxDelay: TimeInterval = 60,
                    multiplier: Double = 2, maxRetryAfter: TimeInterval = 300, jitter: Double = 0) {
            self.maxAttempts = max(1, maxAttempts)
            self.initialDelay = initialDelay
            self.maxDelay = maxDelay
            self.multiplier = multiplier
            self.maxRetryAfter = maxRetryAfter
            self.jitter = min(1, max(0, jitter))
        }

        /// Five attempts, 1 s doubling to 60 s, each delay shortened by up to 20 % at random.
        public static let `default` = RetryPolicy(jitter: 0.2)

        /// One attempt only.
        public static let never = RetryPolicy(maxAttempts: 1)

        /// The delay after failed attempt number `attempt` (1-based), before jitter.
        public func delay(afterAttempt attempt: Int) -> TimeInterval {
            min(maxDelay, initialDelay * pow(multiplier, Double(max(0, attempt - 1))))
        }

        /// The delay after failed attempt number `attempt`, with jitter drawn from `random` (0 to 1).
        public func jitteredDelay(afterAttempt attempt: Int, random: () -> Double = { Double.random(in: 0...1) }) -> TimeInterval {
            delay(afterAttempt: attempt) * (1 - jitter * random())
        }
    }
}
