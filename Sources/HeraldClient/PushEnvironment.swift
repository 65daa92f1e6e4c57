/// The APNs environment the app's device token belongs to: development builds get sandbox tokens,
/// TestFlight and App Store builds get production tokens. A token sent to the wrong one fails with
/// BadDeviceToken, so the installation records it.
public enum PushEnvironment: String, Sendable, Codable, CaseIterable {
    case sandbox
    case production
}
