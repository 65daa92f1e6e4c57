import Foundation

/// What a key may do. Admin keys manage apps; master keys do everything on their app; client keys only
/// touch the installation they name and report opens.
public enum KeyScope: String, Sendable, CaseIterable {
    case admin, master, client
}

/// A stored API key: only the SHA-256 of the secret is kept, plus a short hint for humans.
public struct APIKeyRecord: Sendable, Equatable {
    public var id: String
    /// nil for admin keys.
    public var appID: String?
    public var scope: KeyScope
    public var hash: [UInt8]
    /// The first characters of the secret, enough to tell keys apart in a listing.
    public var hint: String
    public var createdAt: Date
    public var revokedAt: Date?

    public init(id: String, appID: String?, scope: KeyScope, hash: [UInt8], hint: String, createdAt: Date, revokedAt: Date? = nil) {
        self.id = id; self.appID = appID; self.scope = scope; self.hash = hash; self.hint = hint
        self.createdAt = createdAt; self.revokedAt = revokedAt
    }
}
