import Foundation
import HeraldHTTP

/// A way of proving who calls besides Herald's own bearer keys: LeanCloud's `X-LC-*` headers, JPush's Basic
/// credentials, the console's session cookie.
public protocol CallerAuthentication: Sendable {
    /// Whether the head carries this scheme's credentials. Asked before the body is read: a request that
    /// carries no credentials of any accepted scheme is refused without reading its body.
    func presents(_ headers: HTTPHeaders) -> Bool
    /// The caller, when `presents` was true. Throws an `APIError` (401, or 403 for a key that is valid but
    /// not allowed here) when the credentials are wrong; never returns a caller for wrong credentials.
    func authenticate(_ request: HTTPRequest, now: Date) async throws -> Principal
}

/// How a family of routes speaks: which credentials it accepts beside Herald's bearer keys, and how it writes
/// an error. Herald's own routes use `herald`; the LeanCloud- and JPush-compatible routes answer in those
/// services' error bodies, because their SDKs parse nothing else.
public struct APIDialect: Sendable {
    /// Tried in order before Herald's bearer key; the first whose credentials the request presents decides.
    public var authentications: [any CallerAuthentication]
    /// Writes an error (with headers such as `retry-after`) as this family's clients expect it.
    public var errorResponse: @Sendable (APIError, HTTPHeaders) -> HTTPResponse

    /// Without `errorResponse`, errors are Herald's own body.
    public init(authentications: [any CallerAuthentication] = [],
                errorResponse: (@Sendable (APIError, HTTPHeaders) -> HTTPResponse)? = nil) {
        self.authentications = authentications
        self.errorResponse = errorResponse ?? { .error($0, headers: $1) }
    }

    /// Herald's own: bearer keys only, `{"error":{"code","message","field"}}`.
    public static let herald = APIDialect()

    /// The scheme whose credentials the head presents, if any.
    func authentication(presentedIn headers: HTTPHeaders) -> (any CallerAuthentication)? {
        authentications.first { $0.presents(headers) }
    }
}
