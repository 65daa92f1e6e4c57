import Foundation

/// An app's identity on a hosted push service it is moving from (LeanCloud's App ID and keys, JPush's App Key
/// and Master Secret), so that service's clients can talk to Herald unchanged. The secrets are needed to verify
/// signatures, not only to compare, so they are sealed by the server (not hashed) before they get here.
public struct CompatIdentityRecord: Sendable, Equatable {
    public var appID: String
    /// Which service: "leancloud", "jpush".
    public var provider: String
    /// The identifier that service's clients send in the clear (LeanCloud's App ID, JPush's App Key): unique
    /// per provider, so a request names its Herald app through it.
    public var publicID: String
    public var sealed: [UInt8]
    /// What an operator may see to tell keys apart (their first characters), never enough to use them.
    public var hint: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(appID: String, provider: String, publicID: String, sealed: [UInt8], hint: String, createdAt: Date, updatedAt: Date) {
        self.appID = appID; self.provider = provider; self.publicID = publicID; self.sealed = sealed
        self.hint = hint; self.createdAt = createdAt; self.updatedAt = updatedAt
    }
}
