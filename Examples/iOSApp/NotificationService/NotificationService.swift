// The Notification Service Extension target: adds the image a push points to (seed 001's
// "my-attachment") before the notification is shown. Pushes must carry "mutable-content": 1.
// (Example code for an app extension target that links HeraldClient; not built by this package.)
import HeraldClient
import UserNotifications

final class NotificationService: UNNotificationServiceExtension {
    // About 30 s are allowed in all; leave a margin for attaching and delivering.
    private let helper = NotificationServiceHelper(
        downloader: AttachmentDownloader(payloadKey: "my-attachment", timeBudget: 25))

    override func didReceive(_ request: UNNotificationRequest,
                             withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        helper.didReceive(request, contentHandler: contentHandler)
    }

    override func serviceExtensionTimeWillExpire() {
        // The download did not finish: the unmodified notification is shown.
        helper.serviceExtensionTimeWillExpire()
    }
}
