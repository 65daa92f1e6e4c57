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
    // @unchecked: `pending` is only read and cleared while holding `lock`; the handler is called once.
    private let lock = NSLock()
    private var pending: (handler: (UNNotificationContent) -> Void, original: UNNotificationContent)?
    public let downloader: AttachmentDownloader

    public init(downloader: AttachmentDownloader) {
        self.downloader = downloader
    }

    /// Starts the download; the content handler is called exactly once, from here or from
    /// ``serviceExtensionTimeWillExpire()``.
    public func didReceive(_ request: UNNotificationRequest, contentHandler: @escaping (UNNotificationContent) -> Void) {
        lock.lock()
        pending = (contentHandler, request.content)
        lock.unlock()
        let notification = PushNotification(userInfo: request.content.userInfo)
        let downloader = self.downloader
        Task {
            let file = await downloader.downloadAttachment(for: notification)
            self.deliver(with: file)
        }
    }

    /// Delivers the unmodified content if the download has not finished.
    public func serviceExtensionTimeWillExpire() {
        deliver(with: nil)
    }

    private func deliver(with file: DownloadedAttachment?) {
        lock.lock()
        let taken = pending
        pending = nil
        lock.unlock()
        guard let taken else { return }
        guard let file,
              let content = taken.original.mutableCopy() as? UNMutableNotificationContent,
              let attachment = try? UNNotificationAttachment(identifier: file.fileURL.lastPathComponent, url: file.fileURL) else {
            taken.handler(taken.original)
            return
        }
        content.attachments = [attachment]
        taken.handler(content)
    }
}
#endif
