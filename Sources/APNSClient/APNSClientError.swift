import APNSCore
import HeraldHTTP

/// Why a notification was not delivered.
public enum APNSClientError: Error, Sendable, CustomStringConvertible {
    /// APNs answered with an error status and reason.
    case rejected(APNSError)
    /// The notification broke a rule before it was sent.
    case invalid(APNSValidationError)
    /// No answer from APNs after the allowed attempts (connection loss, timeout, refused streams).
    case transport(HTTP2ClientError)
    /// The credentials could not be used (unreadable key, signing failure).
    case credentials(String)
    /// The client was shut down.
    case shutdown

    public var description: String {
        switch self {
        case let .rejected(e): e.description
        case let .invalid(e): e.description
        case let .transport(e): e.description
        case let .credentials(why): "credentials unusable: \(why)"
        case .shutdown: "the APNs client is shut down"
        }
    }

    /// The APNs reason, when APNs gave one.
    public var reason: APNSReason? {
        if case let .rejected(e) = self { return e.reason }
        return nil
    }
}
