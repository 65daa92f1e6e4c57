/// An error the API reports to its caller as `{"error":{"code","message","field"}}` with `status`.
public struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    public var field: String?

    public init(status: Int, code: String, message: String, field: String? = nil) {
        self.status = status; self.code = code; self.message = message; self.field = field
    }

    public var description: String { "\(status) \(code): \(message)" + (field.map { " (field \($0))" } ?? "") }

    public var json: JSON {
        // `field` is always there (null when no single field is at fault), so clients read one shape.
        ["error": ["code": .string(code), "message": .string(message), "field": .optional(field)]]
    }

    public static func invalid(_ field: String, _ message: String) -> APIError {
        APIError(status: 422, code: "invalid_field", message: message, field: field)
    }
    public static func missing(_ field: String) -> APIError {
        APIError(status: 422, code: "missing_field", message: "\(field) is required.", field: field)
    }
    public static func badRequest(_ message: String) -> APIError {
        APIError(status: 400, code: "bad_request", message: message)
    }
    public static func notFound(_ what: String) -> APIError {
        APIError(status: 404, code: "not_found", message: "\(what) does not exist (or belongs to another app).")
    }
    public static func conflict(_ message: String) -> APIError {
        APIError(status: 409, code: "conflict", message: message)
    }
    public static let unauthorized = APIError(status: 401, code: "unauthorized",
        message: "Send a valid key as 'Authorization: Bearer <key>'. The key is missing, unknown or revoked.")
    public static func forbidden(_ message: String) -> APIError {
        APIError(status: 403, code: "forbidden", message: message)
    }

    /// The store has no room left (`StoreError.storageFull`); the details go to the operator's log.
    public static let storageFull = APIError(status: 507, code: "storage_full",
        message: "The server's storage is full, so this request was not completed (an import keeps the lines stored before the failure; sending it again updates them). Data stored earlier is intact. Retry later: the server's operator must free disk space, and the server resumes by itself once there is room.")
}
