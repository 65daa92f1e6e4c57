import Foundation

/// Capped exponential backoff with full jitter, for 429, 5xx, lost connections and timeouts.
/// Permanent APNs errors (BadDeviceToken, Unregistered, PayloadTooLarge, ...) are never retried, nor is a
/// request the server counted as processed in a GOAWAY and then left unanswered. Requests above a GOAWAY's
/// last stream id are not retries: they go to another connection without using up an attempt.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(30)) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    public static let none = RetryPolicy(maxAttempts: 1)

    /// The wait before attempt `attempt + 1` (attempt counts from 1): a random point in
    /// [0, min(maxDelay, base·2^(attempt-1))], or `retryAfter` when the server named one.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration? = nil,
                      random: (ClosedRange<Double>) -> Double = { Double.random(in: $0) }) -> Duration {
        if let retryAfter { return min(retryAfter, maxDelay) }
        let exponent = min(30, max(0, attempt - 1))
        let ceiling = min(maxDelay, baseDelay * (1 << exponent))
        let seconds = Double(ceiling.components.seconds) + Double(ceiling.components.attoseconds) / 1e18
        return .nanoseconds(Int64(random(0...1) * seconds * 1e9))
    }
}
