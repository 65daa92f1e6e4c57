/// Who is calling, decided from the bearer key.
public struct Principal: Sendable, Equatable {
    public enum Role: Sendable, Equatable {
        case admin
        case master(appID: String)
        case client(appID: String)
    }
    public var keyID: String
    public var role: Role

    /// The app the key belongs to; nil for admin keys.
    public var appID: String? {
        switch role {
        case .admin: nil
        case .master(let id), .client(let id): id
        }
    }
}

/// Which callers a route admits.
public enum Access: String, Sendable {
    /// No key (health, metrics, the OpenAPI document).
    case open
    /// Admin keys only.
    case admin
    /// Admin keys, or the master key of the app named by the `{appId}` path parameter.
    case appAdmin
    /// The app's master key.
    case master
    /// The app's master or client key.
    case client
}
