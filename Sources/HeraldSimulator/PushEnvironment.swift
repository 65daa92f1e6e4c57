/// The APNs environment a token, a certificate, a key or a listener belongs to.
/// Sandbox and production tokens differ, and each side rejects the other's tokens.
public enum PushEnvironment: String, Sendable, Codable, CaseIterable {
    case sandbox
    case production
}
