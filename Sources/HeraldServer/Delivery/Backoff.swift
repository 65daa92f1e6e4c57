import Foundation

/// Capped exponential backoff with jitter: attempt n waits between half and all of min(cap, base·2ⁿ).
struct Backoff: Sendable {
    var base: Double
    var cap: Double

    func delay(attempt: Int, random: Double) -> Double {
        let full = min(cap, base * pow(2, Double(min(attempt, 30))))
        return full * (0.5 + 0.5 * random)
    }
}
