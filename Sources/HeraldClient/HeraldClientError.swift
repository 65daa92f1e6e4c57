import Foundation

/// What can go wrong in HeraldClient, each with a message that says what to do about it.
public enum HeraldClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device token text is not hex bytes.
    case invalidDeviceToken(String)
    /// The server refused the request (4xx other than 429): retrying the same request will not help.
    case rejected(status: Int, code: String, message: String, field: String?)
    /// The server could not be reached, or kept failing (5xx, 429), after every attempt the retry policy allows.
    /// The change is kept and sent again on the next ``HeraldClient/sync()``.
    case unavailable(attempts: Int, lastStatus: Int?, reason: String)
    /// The server asked to wait longer (Retry-After) than the retry policy is willing to sleep.
    case rateLimited(retryAfter: TimeInterval)
    /// Reading or writing the client's storage failed.
    case storageFailed(String)
    /// An argument the app passed is unusable.
    case invalidArgument(name: String, reason: String)

    public var description: String {
        switch self {
        case .invalidDeviceToken(let text):
            return "invalid device token \"\(text)\": pass the Data from didRegisterForRemoteNotificationsWithDeviceToken, or its hex form"
        case .rejected(let status, let code, let message, let field):
            let hint: String
            switch status {
            case 401, 403: hint = "check that clientKey is this app's client key"
            case 404: hint = "check serverURL; the installation may have been deleted on the server"
            default: hint = "fix the request; retrying it unchanged will fail again"
            }
            return "server rejected the request (\(status) \(code)\(field.map { ", field \($0)" } ?? "")): \(message); \(hint)"
        case .unavailable(let attempts, let status, let reason):
            return "server unavailable after \(attempts) attempt(s)\(status.map { " (last status \($0))" } ?? ""): \(reason); the change is kept and sent again on the next sync()"
        case .rateLimited(let seconds):
            return "server asked to retry after \(Int(seconds)) s, longer than RetryPolicy.maxRetryAfter; the change is kept, call sync() later"
        case .storageFailed(let reason):
            return "storage failed: \(reason)"
        case .invalidArgument(let name, let reason):
            return "invalid \(name): \(reason)"
        }
    }
}
