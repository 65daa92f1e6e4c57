/// The `aps` dictionary: every key of Apple's payload reference.
///
/// Flags that APNs reads as the number `1` (`content-available`, `mutable-content`,
/// `input-push-token`) are `Bool`s here: `true` is written as `1`, `false` leaves the key out.
/// Times (`timestamp`, `stale-date`, `dismissal-date`) are UNIX seconds, as on the wire.
///
/// Keys this model does not know are kept in ``extra`` (APNs ignores custom keys inside `aps`;
/// old tutorials put them there anyway, and round trips must not lose them).
public struct APNSAps: Sendable, Equatable {
    /// `alert`: a string or a dictionary.
    public var alert: APNSAlert?
    /// `badge`: the app icon number; `0` removes the badge, `nil` leaves it unchanged.
    public var badge: Int?
    /// `sound`: a file name, or the critical-alert dictionary.
    public var sound: APNSSound?
    /// `thread-id`: groups notifications.
    public var threadID: String?
    /// `category`: a registered `UNNotificationCategory` identifier (action buttons).
    public var category: String?
    /// `content-available: 1`: wake the app in the background.
    public var contentAvailable: Bool
    /// `mutable-content: 1`: pass through the Notification Service Extension.
    public var mutableContent: Bool
    /// `target-content-id`: the window to bring forward.
    public var targetContentID: String?
    /// `interruption-level`
    public var interruptionLevel: APNSInterruptionLevel?
    /// `relevance-score`: 0–1 for notifications; any number for Live Activities.
    public var relevanceScore: Double?
    /// `filter-criteria`: Focus filter criteria.
    public var filterCriteria: String?
    /// `stale-date`: UNIX seconds when a Live Activity becomes stale.
    public var staleDate: Int?
    /// `content-state`: the Live Activity's `ContentState`.
    public var contentState: JSONObject?
    /// `timestamp`: UNIX seconds this Live Activity update was sent; the newest wins.
    public var timestamp: Int?
    /// `event`: Live Activity `start`, `update` or `end`.
    public var event: APNSLiveActivityEvent?
    /// `dismissal-date`: UNIX seconds at which an ended Live Activity is removed.
    public var dismissalDate: Int?
    /// `attributes-type`: the `ActivityAttributes` type name (push-to-start).
    public var attributesType: String?
    /// `attributes`: the static attributes (push-to-start).
    public var attributes: JSONObject?
    /// `input-push-token: 1`: a started Live Activity issues an update token (iOS 18+).
    public var inputPushToken: Bool
    /// `input-push-channel`: channel a started Live Activity subscribes to (iOS 18+).
    public var inputPushChannel: String?
    /// `content-changed: true`: the widgets push type's reload signal.
    public var contentChanged: Bool
    /// Other `aps` keys, written after the typed ones in insertion order. A key that a typed
    /// property also sets is written once, from the property.
    public var extra: JSONObject

    public init(
        alert: APNSAlert? = nil,
        badge: Int? = nil,
        sound: APNSSound? = nil,
        threadID: String? = nil,
        category: String? = nil,
        contentAvailable: Bool = false,
        mutableContent: Bool = false,
        targetContentID: String? = nil,
        interruptionLevel: APNSInterruptionLevel? = nil,
        relevanceScore: Double? = nil,
        filterCriteria: String? = nil,
        staleDate: Int? = nil,
        contentState: JSONObject? = nil,
        timestamp: Int? = nil,
        event: APNSLiveActivityEvent? = nil,
        dismissalDate: Int? = nil,
        attributesType: String? = nil,
        attributes: JSONObject? = nil,
        inputPushToken: Bool = false,
        inputPushChannel: String? = nil,
        contentChanged: Bool = false,
        extra: JSONObject = [:]
    ) {
        self.alert = alert
        self.badge = badge
        self.sound = sound
        self.threadID = threadID
        self.category = category
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.targetContentID = targetContentID
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.filterCriteria = filterCriteria
        self.staleDate = staleDate
        self.contentState = contentState
        self.timestamp = timestamp
        self.event = event
        self.dismissalDate = dismissalDate
        self.attributesType = attributesType
        self.attributes = attributes
        self.inputPushToken = inputPushToken
        self.inputPushChannel = inputPushChannel
        self.contentChanged = contentChanged
        self.extra = extra
    }

    /// Sets `badge` to 0, which removes the app icon badge on the device.
    public mutating func removeBadge() {
        badge = 0
    }

    /// The aps of a silent background push: `{"content-available":1}`.
    public static var background: APNSAps {
        APNSAps(contentAvailable: true)
    }

    /// The keys that make a notification visible or audible (`alert`, `badge`, `sound`) that
    /// are set, in that order.
    public var userVisibleKeys: [String] {
        var keys: [String] = []
        if alert != nil { keys.append("alert") }
        if badge != nil { keys.append("badge") }
        if sound != nil { keys.append("sound") }
        return keys
    }

    /// Whether nothing is set.
    public var isEmpty: Bool {
        self == APNSAps()
    }
}
