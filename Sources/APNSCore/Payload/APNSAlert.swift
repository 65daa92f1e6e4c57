/// The `aps.alert` value: a plain string (shown as the body) or a dictionary of parts.
public enum APNSAlert: Sendable, Equatable {
    /// `"alert": "text"`: the text becomes the notification body.
    case text(String)
    /// `"alert": {…}`: title, subtitle, body and localisation keys.
    case content(APNSAlertContent)
}

extension APNSAlert: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        self = .text(value)
    }
}

/// The dictionary form of `aps.alert`.
///
/// Keys Apple documents today, the legacy `action-loc-key`, and the extra keys pushy emits
/// (`action`, `summary-arg`, `summary-arg-count`, `url-args`). Anything else, including Live
/// Activity alerts whose `title`/`body` are localisation dictionaries, is kept in ``extra``.
public struct APNSAlertContent: Sendable, Equatable {
    /// `title`
    public var title: String?
    /// `subtitle`
    public var subtitle: String?
    /// `body`
    public var body: String?
    /// `launch-image`: a launch image or storyboard name.
    public var launchImage: String?
    /// `title-loc-key`: Localizable.strings key for the title.
    public var titleLocKey: String?
    /// `title-loc-args`: values for the title's `%@` placeholders.
    public var titleLocArgs: [String]?
    /// `subtitle-loc-key`
    public var subtitleLocKey: String?
    /// `subtitle-loc-args`
    public var subtitleLocArgs: [String]?
    /// `loc-key`: Localizable.strings key for the body.
    public var locKey: String?
    /// `loc-args`: values for the body's placeholders.
    public var locArgs: [String]?
    /// `action-loc-key` (legacy, archived guide only): the right-hand button of old two-button alerts.
    public var actionLocKey: APNSActionLocKey?
    /// `action` (emitted by pushy; not in Apple's current table).
    public var action: String?
    /// `summary-arg` (iOS 12 grouping summaries; not in Apple's current table).
    public var summaryArg: String?
    /// `summary-arg-count`
    public var summaryArgCount: Int?
    /// `url-args` (Safari push).
    public var urlArgs: [String]?
    /// Other alert keys, written after the typed ones in insertion order. A key that a typed
    /// property also sets is written once, from the property.
    public var extra: JSONObject

    public init(
        title: String? = nil,
        subtitle: String? = nil,
        body: String? = nil,
        launchImage: String? = nil,
        titleLocKey: String? = nil,
        titleLocArgs: [String]? = nil,
        subtitleLocKey: String? = nil,
        subtitleLocArgs: [String]? = nil,
        locKey: String? = nil,
        locArgs: [String]? = nil,
        actionLocKey: APNSActionLocKey? = nil,
        action: String? = nil,
        summaryArg: String? = nil,
        summaryArgCount: Int? = nil,
        urlArgs: [String]? = nil,
        extra: JSONObject = [:]
    ) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.launchImage = launchImage
        self.titleLocKey = titleLocKey
        self.titleLocArgs = titleLocArgs
        self.subtitleLocKey = subtitleLocKey
        self.subtitleLocArgs = subtitleLocArgs
        self.locKey = locKey
        self.locArgs = locArgs
        self.actionLocKey = actionLocKey
        self.action = action
        self.summaryArg = summaryArg
        self.summaryArgCount = summaryArgCount
        self.urlArgs = urlArgs
        self.extra = extra
    }
}

/// The legacy `action-loc-key`: a string localised the "View" button; `null` showed only "OK".
public enum APNSActionLocKey: Sendable, Equatable {
    /// `"action-loc-key": "<key>"`
    case key(String)
    /// `"action-loc-key": null`
    case hideViewButton
}
