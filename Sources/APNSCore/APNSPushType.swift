/// The `apns-push-type` header: what kind of notification a request carries.
///
/// An open set: the known values are static members, and a value APNs adds later can still be
/// written as `APNSPushType(rawValue: "…")`.
public struct APNSPushType: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    /// The header value.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// A user-visible alert, sound or badge. Topic: the bundle ID.
    public static let alert = APNSPushType(rawValue: "alert")
    /// A silent content update (`content-available: 1`); must use priority 5. Topic: the bundle ID.
    public static let background = APNSPushType(rawValue: "background")
    /// A PushKit VoIP call. Topic: `<bundle>.voip`; payload up to 5120 bytes.
    public static let voip = APNSPushType(rawValue: "voip")
    /// A watchOS complication update. Topic: `<bundle>.complication`.
    public static let complication = APNSPushType(rawValue: "complication")
    /// A File Provider change. Topic: `<bundle>.pushkit.fileprovider`.
    public static let fileprovider = APNSPushType(rawValue: "fileprovider")
    /// A device-management wake-up. Topic: the UID of the MDM push certificate (no suffix rule).
    public static let mdm = APNSPushType(rawValue: "mdm")
    /// A location query (token authentication only). Topic: `<bundle>.location-query`.
    public static let location = APNSPushType(rawValue: "location")
    /// A Live Activity start, update or end. Topic: `<bundle>.push-type.liveactivity`.
    public static let liveactivity = APNSPushType(rawValue: "liveactivity")
    /// A Push to Talk wake-up. Topic: `<bundle>.voip-ptt`.
    public static let pushtotalk = APNSPushType(rawValue: "pushtotalk")
    /// A widget reload. Topic: `<bundle>.push-type.widgets`.
    public static let widgets = APNSPushType(rawValue: "widgets")
    /// A Control Center control reload. Topic: `<bundle>.push-type.controls` (not in Apple's table).
    public static let controls = APNSPushType(rawValue: "controls")

    /// Every push type this library knows.
    public static let allKnown: [APNSPushType] = [
        .alert, .background, .voip, .complication, .fileprovider, .mdm, .location, .liveactivity,
        .pushtotalk, .widgets, .controls,
    ]

    /// Whether this is one of ``allKnown``.
    public var isKnown: Bool { Self.allKnown.contains(self) }

    /// The suffix `apns-topic` must end with for this push type (`".voip"` for VoIP), or `nil`
    /// when the topic is the plain bundle ID (alert, background) or follows no suffix rule
    /// (mdm, unknown types).
    public var requiredTopicSuffix: String? {
        switch rawValue {
        case "voip": return ".voip"
        case "complication": return ".complication"
        case "fileprovider": return ".pushkit.fileprovider"
        case "location": return ".location-query"
        case "liveactivity": return ".push-type.liveactivity"
        case "pushtotalk": return ".voip-ptt"
        case "widgets": return ".push-type.widgets"
        case "controls": return ".push-type.controls"
        default: return nil
        }
    }

    /// The `apns-topic` for this push type to an app: the bundle ID plus the required suffix.
    public func topic(forBundleID bundleID: String) -> String {
        bundleID + (requiredTopicSuffix ?? "")
    }

    /// The `apns-topic` for this push type from a topic a caller configured: a bundle ID gets the
    /// required suffix, a topic that already ends with it is kept, so a provider whose users type
    /// `com.example.app.voip` for VoIP does not send to `com.example.app.voip.voip`.
    public func topic(from configured: String) -> String {
        guard let suffix = requiredTopicSuffix, !configured.hasSuffix(suffix) else { return configured }
        return configured + suffix
    }

    /// Largest payload APNs accepts for this push type, in bytes: 5120 for VoIP, else 4096.
    public var payloadSizeLimit: Int {
        self == .voip ? 5120 : 4096
    }

    /// Whether APNs refuses this push type on certificate connections: `location` (Apple) and
    /// `liveactivity` (per the apns2 library; Apple's pages do not say).
    public var requiresTokenAuthentication: Bool {
        self == .location || self == .liveactivity
    }
}
