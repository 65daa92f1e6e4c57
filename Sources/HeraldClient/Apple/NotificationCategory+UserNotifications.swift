#if canImport(UserNotifications) && (os(iOS) || os(macOS) || os(visionOS))
import UserNotifications

extension NotificationAction {
    /// The action as UserNotifications wants it (a text-input action when ``textInput`` is set).
    public var userNotificationAction: UNNotificationAction {
        var options: UNNotificationActionOptions = []
        if self.options.contains(.foreground) { options.insert(.foreground) }
        if self.options.contains(.destructive) { options.insert(.destructive) }
        if self.options.contains(.authenticationRequired) { options.insert(.authenticationRequired) }
        if let textInput {
            return UNTextInputNotificationAction(identifier: identifier, title: title, options: options,
                                                 textInputButtonTitle: textInput.buttonTitle,
                                                 textInputPlaceholder: textInput.placeholder)
        }
        return UNNotificationAction(identifier: identifier, title: title, options: options)
    }
}

extension NotificationCategory {
    /// The category as UserNotifications wants it.
    public var userNotificationCategory: UNNotificationCategory {
        var options: UNNotificationCategoryOptions = []
        if self.options.contains(.customDismissAction) { options.insert(.customDismissAction) }
        #if os(iOS)
        if self.options.contains(.allowInCarPlay) { options.insert(.allowInCarPlay) }
        #endif
        if self.options.contains(.hiddenPreviewsShowTitle) { options.insert(.hiddenPreviewsShowTitle) }
        if self.options.contains(.hiddenPreviewsShowSubtitle) { options.insert(.hiddenPreviewsShowSubtitle) }
        return UNNotificationCategory(identifier: identifier, actions: actions.map(\.userNotificationAction),
                                      intentIdentifiers: intentIdentifiers, options: options)
    }
}

extension UNUserNotificationCenter {
    /// Registers the app's categories (replacing any registered before).
    public func setNotificationCategories(_ categories: [NotificationCategory]) {
        setNotificationCategories(Set(categories.map(\.userNotificationCategory)))
    }
}

extension PushNotification {
    /// Parses a delivered notification's content.
    public init(content: UNNotificationContent) {
        self.init(userInfo: content.userInfo)
    }
}
#endif
