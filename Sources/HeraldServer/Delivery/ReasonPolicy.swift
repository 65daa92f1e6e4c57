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
