/// An error the REST API reports to its caller as `{"error":{"code","message","field"}}` with `status`.
/// Domain failures arrive as `ServiceError` and are mapped here; the cases built directly are the HTTP
/// layer's own (unreadable body or query, authentication, limits).
public struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    public var field: String?

    public init(status: Int, code: String, message: String, field: String? = nil) {
        self.status = status; self.code = code; self.message = message; self.field = field
    }

    /// The domain error on the wire: status from its kind, code, message and field unchanged.
    public init(_ error: ServiceError) {
        let status = switch error.kind {
        case .invalid: 422
        case .notFound: 404
        case .conflict: 409
        case .forbidden: 403
        case .storageFull: 507
        case .unavailable: 503
        }
        self.init(status: status, code: error.code, message: error.message, field: error.field)
    }

    public var description: String { "\(status) \(code): \(message)" + (field.map { " (field \($0))" } ?? "") }

    public var json: JSON {
        // `field` is always there (null when no single field is at fault), so clients read one shape.
        ["error": ["code": .string(code), "message": .string(message), "field": .optional(field)]]
    }

    public static func missing(_ field: String) -> APIError { APIError(.missing(field)) }
    public static func badRequest(_ message: String) -> APIError {
        APIError(status: 400, code: "bad_request", message: message)
    }
    public static func invalidQuery(_ field: String, _ message: String) -> APIError {
        APIError(status: 400, code: "invalid_query", message: message, field: field)
    }
    public static let unauthorized = APIError(status: 401, code: "unauthorized",
        message: "Send a valid key as 'Authorization: Bearer <key>'. The key is missing, unknown or revoked.")
    public static func forbidden(_ message: String) -> APIError { APIError(.forbidden(message)) }
    public static let storageFull = APIError(.storageFull)
}
