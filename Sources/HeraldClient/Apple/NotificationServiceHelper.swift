#if canImport(UserNotifications) && os(iOS)
import Foundation
import UserNotifications

/// The work of a notification service extension: download the push's attachment within the time
/// budget and deliver the content with it, or deliver the content unmodified when the download fails
/// or the system says time is up. Keep one per extension instance and forward the two calls:
///
/// ```swift
/// final class NotificationService: UNNotificationServiceExtension {
///     private let helper = NotificationServiceHelper(downloader: AttachmentDownloader(payloadKey: "my-attachment"))
///     override func didReceive(_ request: UNNotificationRequest,
///                              withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
///         helper.didReceive(request, contentHandler: contentHandler)
///     }
///     override func serviceExtensionTimeWillExpire() { helper.serviceExtensionTimeWillExpire() }
/// }
/// ```
public final class NotificationServiceHelper: @unchecked Sendable {
    // @unchecked: `delivery` is only read and replaced while holding `lock`.
    private let lock = NSLock()
    private var delivery: AttachmentDelivery<UNNotificationContent>?
    /// Finds and downloads the attachment.
    public let downloader: AttachmentDownloader

    public init(downloader: AttachmentDownloader) {
        self.downloader = downloader
    }

    /// Starts the download; the content handler is called exactly once, from here or from
    /// ``serviceExtensionTimeWillExpire()``.
    public func didReceive(_ request: UNNotificationRequest, contentHandler: @escaping (UNNotificationContent) -> Void) {
        let delivery = AttachmentDelivery(original: request.content, handler: contentHandler)
        lock.lock()
        self.delivery = delivery
        lock.unlock()
        let notification = PushNotification(userInfo: request.content.userInfo)
        let downloader = self.downloader
        Task {
            await delivery.run(notification, with: downloader) { original, file in
                guard let content = original.mutableCopy() as? UNMutableNotificationContent,
                      let attachment = try? UNNotificationAttachment(identifier: file.fileURL.lastPathComponent,
                                                                     url: file.fileURL) else { return nil }
                content.attachments = [attachment]
                return content
            }
        }
    }

    /// Delivers the unmodified content if the download has not finished.
    public func serviceExtensionTimeWillExpire() {
        lock.lock()
        let delivery = self.delivery
        lock.unlock()
        delivery?.expire()
    }
}
#endif
