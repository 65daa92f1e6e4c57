/// A button shown with a notification, platform-neutral; on Apple platforms it becomes a
/// `UNNotificationAction` (or `UNTextInputNotificationAction` when it asks for text).
public struct NotificationAction: Sendable, Hashable {
    /// How an action behaves when chosen.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Opens the app.
        public static let foreground = Options(rawValue: 1 << 0)
        /// Shown in red: the action deletes or cancels something.
        public static let destructive = Options(rawValue: 1 << 1)
        /// Requires the device to be unlocked.
        public static let authenticationRequired = Options(rawValue: 1 << 2)
    }

    /// A text field shown by the action (a reply).
    public struct TextInput: Sendable, Hashable {
        public var buttonTitle: String
        public var placeholder: String
        public init(buttonTitle: String, placeholder: String) {
            self.buttonTitle = buttonTitle
            self.placeholder = placeholder
        }
    }

    /// What the app receives as the response's action identifier.
    public var identifier: String
    /// The button title.
    public var title: String
    /// How the action behaves.
    public var options: Options
    /// Set to make the action ask for text (a reply field).
    public var textInput: TextInput?

    public init(identifier: String, title: String, options: Options = [], textInput: TextInput? = nil) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.textInput = textInput
    }
}

/// A kind of notification and its actions, platform-neutral; on Apple platforms it becomes a
/// `UNNotificationCategory`. A push selects it with `aps.category`.
public struct NotificationCategory: Sendable, Hashable {
    /// How the category's notifications behave.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Tell the app when the user dismisses the notification.
        public static let customDismissAction = Options(rawValue: 1 << 0)
        /// Allow the category in CarPlay.
        public static let allowInCarPlay = Options(rawValue: 1 << 1)
        /// Show the title even when previews are hidden.
        public static let hiddenPreviewsShowTitle = Options(rawValue: 1 << 2)
        /// Show the subtitle even when previews are hidden.
        public static let hiddenPreviewsShowSubtitle = Options(rawValue: 1 << 3)
    }

    /// The value pushes put in `aps.category`.
    public var identifier: String
    /// The actions, in display order.
    public var actions: [NotificationAction]
    /// SiriKit intents the category relates to.
    public var intentIdentifiers: [String]
    /// How the category's notifications behave.
    public var options: Options

    public init(identifier: String, actions: [NotificationAction], intentIdentifiers: [String] = [], options: Options = []) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.options = options
    }

    /// The action with `identifier`, as the response to a notification names it.
    public func action(withIdentifier identifier: String) -> NotificationAction? {
        actions.first { $0.identifier == identifier }
    }
}

extension Sequence where Element == NotificationCategory {
    /// The category a push selects with `aps.category`, if the app registered it.
    public func category(for notification: PushNotification) -> NotificationCategory? {
        guard let identifier = notification.category else { return nil }
        return first { $0.identifier == identifier }
    }
}
