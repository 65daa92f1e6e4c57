/// `insertPush(_:idempotentSince:reaching:)` stored nothing: the audience reaches no installation.
public struct AudienceReachesNoOne: Error, Sendable, Equatable {
    public init() {}
}

/// Raised by the store when a request conflicts with stored data (the server maps it to 404/409), or when
/// nothing more can be written (507).
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFound
    case conflict(String)
    /// The disk (or the database's size limit) is full. The failed transaction was rolled back whole, so
    /// what was stored before is intact; writes succeed again once space is freed. The text is the engine's
    /// own detail, for the operator's log.
    case storageFull(String)
    /// The database cannot be reached (a server restarting, a network failure). Nothing of the failed
    /// transaction was kept, or it was kept whole; the store reconnects by itself on a later call.
    case unavailable(String)

    public var description: String {
        switch self {
        case .notFound: "not found"
        case .conflict(let message): "conflict: \(message)"
        case .storageFull(let detail): "storage full: \(detail)"
        case .unavailable(let detail): "database unavailable: \(detail)"
        }
    }
}
