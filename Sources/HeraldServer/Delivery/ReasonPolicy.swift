import Foundation
import APNSCore

/// How the engine treats each APNs answer, from APNSCore's reason classification.
enum ReasonPolicy {
    enum Action: Equatable {
        case sent
        /// The token is dead: fail and retire the installation (unless re-registered after the 410 time).
        case retire
        /// The app's credential is wrong: pause the app, put the delivery back.
        case pauseApp
        /// Worth another try later.
        case retry
        /// Our request was wrong: fail, keep the installation.
        case fail
    }

    static func action(status: Int?, reason: String?) -> Action {
        guard let status else { return .retry }   // no answer: connection failure, timeout, reset
        if status == 200 { return .sent }
        if let reason {
            let known = APNSReason(rawValue: reason)
            if known.retiresToken { return .retire }
            if known.isCredentialFailure { return .pauseApp }
            if known.isRetryable { return .retry }
            if known.isPermanent { return .fail }
        }
        if status == 410 { return .retire }
        if status == 429 || status >= 500 { return .retry }
        return .fail
    }
}

/// Capped exponential backoff with jitter: attempt n waits between half and all of min(cap, base·2ⁿ).
struct Backoff: Sendable {
    var base: Double
    var cap: Double

    func delay(attempt: Int, random: Double) -> Double {
        let full = min(cap, base * pow(2, Double(min(attempt, 30))))
        return full * (0.5 + 0.5 * random)
    }
}

/// UUIDv5-style apns-id from (push id, installation id): the same delivery always carries the same id.
func stableAPNsID(pushID: String, installationID: String, crypto: any ServerCrypto) -> String {
    var b = Array(crypto.sha256(Array("herald:apns-id:\(pushID):\(installationID)".utf8)).prefix(16))
    b[6] = (b[6] & 0x0f) | 0x50
    b[8] = (b[8] & 0x3f) | 0x80
    let h = b.hex
    let c = Array(h)
    return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
}
