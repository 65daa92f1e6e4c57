import Foundation

/// An APNs credential for one app and environment, sealed (encrypted) by the server before it gets here.
public struct CredentialRecord: Sendable, Equatable {
    public var appID: String
    /// "sandbox" or "production".
    public var environment: String
    /// "token" (.p8) or "certificate".
    public var kind: String
    public var sealed: [UInt8]
    public var keyID: String?
    public var teamID: String?
    public var topic: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(appID: String, environment: String, kind: String, sealed: [UInt8], keyID: String?, teamID: String?,
                topic: String?, createdAt: Date, updatedAt: Date) {
        self.appID = appID; self.environment = environment; self.kind = kind; self.sealed = sealed
        self.keyID = keyID; self.teamID = teamID; self.topic = topic; self.createdAt = createdAt; self.updatedAt = updatedAt
    }
}
