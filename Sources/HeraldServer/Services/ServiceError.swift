import HeraldStore

/// What went wrong in an operation, in the domain's terms. Services throw it and know nothing of the wire;
/// each interface maps it to its own format (REST: `APIError(_:)`, status from `kind`, `{"error":{...}}`).
/// `code` is a stable reason ("missing_field", "payload_too_large") so callers can branch without parsing
/// the message; `field` names the one input at fault, as a dotted path in Herald's request shape.
public struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The input breaks a rule: a field is missing, unknown, of the wrong type or out of range.
        case invalid
        /// The thing named does not exist, or belongs to another app (callers must not learn which).
        case notFound
        /// The request contradicts what is stored (an idempotency key reused, a finished push).
        case conflict
        /// The caller may not do this.
        case forbidden
        /// Storage has no room; nothing of the operation was kept.
        case storageFull
        /// The database cannot be reached just now; nothing of the operation was kept. Retry.
        case unavailable
    }

    public var kind: Kind
    public var code: String
    public var message: String
    public var field: String?

    public init(_ kind: Kind, code: String, message: String, field: String? = nil) {
        self.kind = kind; self.code = code; self.message = message; self.field = field
    }

    public var description: String { "\(code): \(message)" + (field.map { " (field \($0))" } ?? "") }

    public static func invalid(_ field: String, _ message: String) -> ServiceError {
        ServiceError(.invalid, code: "invalid_field", message: message, field: field)
    }
    public static func missing(_ field: String, _ message: String? = nil) -> ServiceError {
        ServiceError(.invalid, code: "missing_field", message: message ?? "\(field) is required.", field: field)
    }
    public static func unknownField(_ field: String, known: Set<String>) -> ServiceError {
        ServiceError(.invalid, code: "unknown_field", message: "\(field) is not a known field; known: \(known.sorted().joined(separator: ", ")).", field: field)
    }
    public static func notFound(_ what: String, field: String? = nil) -> ServiceError {
        ServiceError(.notFound, code: "not_found", message: "\(what) does not exist (or belongs to another app).", field: field)
    }
    public static func conflict(_ message: String, code: String = "conflict", field: String? = nil) -> ServiceError {
        ServiceError(.conflict, code: code, message: message, field: field)
    }
    public static func forbidden(_ message: String) -> ServiceError {
        ServiceError(.forbidden, code: "forbidden", message: message)
    }
    public static let storageFull = ServiceError(.storageFull, code: "storage_full",
        message: "The server's storage is full, so this request was not completed (an import keeps the lines stored before the failure; sending it again updates them). Data stored earlier is intact. Retry later: the server's operator must free disk space, and the server resumes by itself once there is room.")

    public static let unavailable = ServiceError(.unavailable, code: "database_unavailable",
        message: "The server cannot reach its database just now, so this request was not completed. Retry in a few seconds (with the same idempotency key for a push): the server reconnects by itself, and everything accepted before is kept.")

    /// A store failure the service did not translate itself, in domain terms; nil for anything that is
    /// not a `StoreError` (an internal failure, which interfaces report without details).
    public init?(_ error: any Error) {
        if let e = error as? ServiceError { self = e; return }
        guard let e = error as? StoreError else { return nil }
        switch e {
        case .notFound: self = .notFound("The resource")
        case .conflict(let message): self = .conflict(message)
        case .storageFull: self = .storageFull
        case .unavailable: self = .unavailable
        }
    }
}
