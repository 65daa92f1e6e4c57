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
        var body: [String: JSON] = ["code": .string(code), "message": .string(message)]
        if let field { body["field"] = .string(field) }
        return ["error": .object(body)]
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
}
