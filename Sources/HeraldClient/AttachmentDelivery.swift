import Foundation

/// The delivery side of a notification service extension, independent of UserNotifications: the content
/// handler is called exactly once, with the content enriched by the attachment when it arrived in time,
/// and with the content as it came on any failure or when the system's time runs out first.
///
/// `Content` is `UNNotificationContent` in an app extension; tests use plain values.
final class AttachmentDelivery<Content>: @unchecked Sendable {
    // @unchecked: `handler` is taken under `lock`, so whoever takes it is the only one to call it;
    // `original` is never mutated.
    private let lock = NSLock()
    private var handler: ((Content) -> Void)?
    private let original: Content

    init(original: Content, handler: @escaping (Content) -> Void) {
        self.original = original
        self.handler = handler
    }

    /// Downloads the push's attachment and delivers `attach(original, file)`, or the original when there is
    /// no attachment, the download fails, or `attach` returns nil.
    func run(_ notification: PushNotification, with downloader: AttachmentDownloader,
             attach: @escaping @Sendable (Content, DownloadedAttachment) -> Content?) async {
        let file = await downloader.downloadAttachment(for: notification)
        deliver { original in file.flatMap { attach(original, $0) } }
    }

    /// Delivers the unmodified content, unless something was delivered already.
    func expire() {
        deliver { _ in nil }
    }

    /// Whether the handler has been called.
    var isDelivered: Bool {
        lock.lock()
        defer { lock.unlock() }
        return handler == nil
    }

    private func deliver(_ enrich: (Content) -> Content?) {
        lock.lock()
        let handler = self.handler
        self.handler = nil
        lock.unlock()
        guard let handler else { return }
        handler(enrich(original) ?? original)
    }
}
