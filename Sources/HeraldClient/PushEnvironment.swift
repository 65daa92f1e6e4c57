/// Also reachable as `HeraldClient.PushEnvironment`, for files that import another module with a `PushEnvironment`
/// (APNSCore, APNSClient, HeraldSimulator): the module name cannot qualify it, the actor's can.
public typealias PushEnvironment = HeraldClient.PushEnvironment

extension HeraldClient {
    /// The APNs environment the app's device token belongs to: development builds get sandbox tokens,
    /// TestFlight and App Store builds get production tokens. A token sent to the wrong one fails with
    /// BadDeviceToken, so the installation records it.
    public enum PushEnvironment: String, Sendable, Codable, CaseIterable {
        case sandbox
        case production
    }
}
