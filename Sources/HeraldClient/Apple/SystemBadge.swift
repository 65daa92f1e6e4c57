#if canImport(UserNotifications) && (os(iOS) || os(macOS) || os(visionOS))
import UserNotifications
#if canImport(UIKit)
import UIKit
#endif

/// Sets the app icon badge through the system.
func setSystemBadge(_ count: Int) async {
    if #available(iOS 16.0, macOS 13.0, *) {
        try? await UNUserNotificationCenter.current().setBadgeCount(count)
    } else {
        #if canImport(UIKit)
        await MainActor.run { UIApplication.shared.applicationIconBadgeNumber = count }
        #endif
    }
}
#else
/// No app icon badge on this platform.
func setSystemBadge(_ count: Int) async {}
#endif
