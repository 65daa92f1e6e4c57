/// The visible part of a push: `aps.alert`, given either as plain text (the body) or as an object.
public struct PushAlert: Sendable, Equatable {
    /// The title, shown in bold.
    public var title: String?
    /// A second line under the title.
    public var subtitle: String?
    /// The message.
    public var body: String?
    /// Localizable title: a key in the app's Localizable.strings, and its format arguments.
    public var titleLocKey: String?
    public var titleLocArgs: [String]?
    /// Localizable subtitle: a key in the app's Localizable.strings, and its format arguments.
    public var subtitleLocKey: String?
    public var subtitleLocArgs: [String]?
    /// Localizable body: a key in the app's Localizable.strings, and its format arguments.
    public var locKey: String?
    public var locArgs: [String]?
    /// Legacy: localizable title of the "View" button.
    public var actionLocKey: String?
    /// An image in the app bundle shown while the app launches from the push.
    public var launchImage: String?

    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil,
                titleLocKey: String? = nil, titleLocArgs: [String]? = nil,
                subtitleLocKey: String? = nil, subtitleLocArgs: [String]? = nil,
                locKey: String? = nil, locArgs: [String]? = nil,
                actionLocKey: String? = nil, launchImage: String? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.titleLocKey = titleLocKey
        self.titleLocArgs = titleLocArgs
        self.subtitleLocKey = subtitleLocKey
        self.subtitleLocArgs = subtitleLocArgs
        self.locKey = locKey
        self.locArgs = locArgs
        self.actionLocKey = actionLocKey
        self.launchImage = launchImage
    }
}

/// `aps.sound`: a sound file name, or for critical alerts an object with a volume.
public struct PushSound: Sendable, Equatable {
    /// The file name in the app bundle, or "default".
    public var name: String
    /// A critical alert plays even when the device is muted.
    public var isCritical: Bool
    /// Critical alert volume, 0 to 1.
    public var volume: Double?

    public init(name: String, isCritical: Bool = false, volume: Double? = nil) {
        self.name = name
        self.isCritical = isCritical
        self.volume = volume
    }
}
