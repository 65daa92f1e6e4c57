import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads the media a push points to (an image, a sound, a video) for a notification service
/// extension, within a time budget, into a file whose extension tells the system what it is.
///
/// Any failure (no URL in the payload, an HTTP error, a type notifications cannot show, the budget
/// running out) leaves the notification as it came: ``downloadAttachment(for:)`` returns nil and the
/// extension delivers the unmodified content.
public struct AttachmentDownloader: Sendable {
    /// The key holding the media URL, looked up like ``PushNotification/value(at:)`` (top level first,
    /// then inside `aps`), e.g. "my-attachment".
    public var payloadKey: String
    /// The longest the download may take, in seconds. A service extension has about 30 s in all.
    public var timeBudget: TimeInterval
    /// Where downloaded files are written.
    public var directory: URL
    /// The largest attachment accepted, in bytes: a larger one is refused from its Content-Length before
    /// the body is read, or as soon as the bytes received pass it. The body goes to the file as it
    /// arrives, never whole into memory: a notification service extension has about 24 MB in all.
    public var maxBytes: Int

    /// 10 MB: room for the images, audio and short videos a notification shows (Apple's own attachment
    /// limits are 10 MB for images, 5 MB for audio, 50 MB for video), well within the extension's memory.
    public static let defaultMaxBytes = 10 << 20

    public init(payloadKey: String = "attachment-url", timeBudget: TimeInterval = 25,
                directory: URL = FileManager.default.temporaryDirectory, maxBytes: Int = AttachmentDownloader.defaultMaxBytes) {
        self.payloadKey = payloadKey
        self.timeBudget = timeBudget
        self.directory = directory
        self.maxBytes = maxBytes
    }

    /// The attachment URL the push carries under ``payloadKey``, if it is an http(s) URL.
    public func attachmentURL(in notification: PushNotification) -> URL? {
        guard let text = notification.value(at: payloadKey)?.stringValue?.trimmingCharacters(in: .whitespaces),
              let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "https" || scheme == "http" else { return nil }
        return url
    }

    /// Downloads the push's attachment, or returns nil when there is none or it cannot be had in time.
    public func downloadAttachment(for notification: PushNotification) async -> DownloadedAttachment? {
        guard let url = attachmentURL(in: notification) else { return nil }
        return try? await download(from: url)
    }

    /// Downloads `url` into a new file in ``directory``.
    /// - Throws: ``AttachmentError``.
    public func download(from url: URL) async throws -> DownloadedAttachment {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeBudget
        configuration.timeoutIntervalForResource = timeBudget
        let outcome = FirstOutcome<DownloadedAttachment>()
        let receiver = LimitedReceiver(maxBytes: maxBytes, directory: directory, outcome: outcome) { location, response, error in
            self.keep(location: location, response: response, error: error, from: url)
        }
        let session = URLSession(configuration: configuration, delegate: receiver, delegateQueue: nil)
        // Invalidate off this path: swift-corelibs-foundation can hold the caller until a slow transfer
        // ends, which would spend the time budget the extension does not have.
        defer { DispatchQueue.global().async { session.invalidateAndCancel() } }
        let budget = timeBudget
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.wait(with: continuation)
                let task = session.dataTask(with: URLRequest(url: url, timeoutInterval: budget))
                outcome.onSettled {
                    task.cancel()
                    receiver.discard()
                }
                task.resume()
                DispatchQueue.global().asyncAfter(deadline: .now() + budget) {
                    outcome.settle { .failure(AttachmentError.timedOut(seconds: budget)) }
                }
            }
        } onCancel: {
            outcome.settle { .failure(CancellationError()) }
        }
    }

    private func keep(location: URL?, response: URLResponse?, error: (any Error)?, from url: URL) -> Result<DownloadedAttachment, any Error> {
        if let error {
            if let urlError = error as? URLError, urlError.code == .timedOut {
                return .failure(AttachmentError.timedOut(seconds: timeBudget))
            }
            return .failure(AttachmentError.transport(error.localizedDescription))
        }
        guard let http = response as? HTTPURLResponse, let location else {
            return .failure(AttachmentError.transport("no HTTP response"))
        }
        guard (200..<300).contains(http.statusCode) else {
            return .failure(AttachmentError.httpStatus(http.statusCode))
        }
        let contentType = http.value(forHTTPHeaderField: "Content-Type")
        guard let fileExtension = MediaType.fileExtension(forContentType: contentType)
                ?? MediaType.fileExtension(forPathExtension: url.pathExtension) else {
            return .failure(AttachmentError.unsupportedMediaType(contentType: contentType, url: url))
        }
        do {
            let size = (try FileManager.default.attributesOfItem(atPath: location.path)[.size] as? NSNumber)?.intValue ?? 0
            guard size > 0 else { return .failure(AttachmentError.emptyBody) }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent("herald-\(UUID().uuidString).\(fileExtension)")
            try FileManager.default.moveItem(at: location, to: file)
            return .success(DownloadedAttachment(fileURL: file, contentType: contentType, sourceURL: url))
        } catch {
            return .failure(AttachmentError.storage(error.localizedDescription))
        }
    }
}

/// Receives a download's body into a file as it arrives and stops it once it is over the limit, from the
/// announced Content-Length or from the bytes received. The session calls it on one delegate queue.
private final class LimitedReceiver: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `file`, `path` and `received` are touched only from the session's serial delegate queue,
    // except in `discard`, which runs under `lock` like them.
    private let lock = NSLock()
    private let maxBytes: Int
    private let directory: URL
    private let outcome: FirstOutcome<DownloadedAttachment>
    private let finish: (URL?, URLResponse?, (any Error)?) -> Result<DownloadedAttachment, any Error>
    private var file: FileHandle?
    private var path: URL?
    private var received = 0

    init(maxBytes: Int, directory: URL, outcome: FirstOutcome<DownloadedAttachment>,
         finish: @escaping (URL?, URLResponse?, (any Error)?) -> Result<DownloadedAttachment, any Error>) {
        self.maxBytes = maxBytes
        self.directory = directory
        self.outcome = outcome
        self.finish = finish
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        if response.expectedContentLength > Int64(maxBytes) {
            let failure = AttachmentError.tooLarge(bytes: Int(response.expectedContentLength), limit: maxBytes)
            outcome.settle { .failure(failure) }
            completionHandler(.cancel)
            return
        }
        lock.lock()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let partial = directory.appendingPathComponent("herald-\(UUID().uuidString).partial")
            guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
                throw AttachmentError.storage("cannot create \(partial.path)")
            }
            file = try FileHandle(forWritingTo: partial)
            path = partial
            lock.unlock()
            completionHandler(.allow)
        } catch {
            lock.unlock()
            outcome.settle { .failure(AttachmentError.storage("\(error)")) }
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        received += data.count
        let count = received
        var failure: AttachmentError?
        if count > maxBytes {
            failure = .tooLarge(bytes: count, limit: maxBytes)
        } else {
            do { try file?.write(contentsOf: data) } catch { failure = .storage("\(error)") }
        }
        lock.unlock()
        if let failure {
            outcome.settle { .failure(failure) }
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        try? file?.close()
        file = nil
        let location = path
        lock.unlock()
        outcome.settle { finish(location, task.response, error) }
        discard()
    }

    /// Removes a partial file that was not kept (the download failed, or the outcome came first).
    func discard() {
        lock.lock()
        try? file?.close()
        file = nil
        if let path { try? FileManager.default.removeItem(at: path) }
        path = nil
        lock.unlock()
    }
}

/// A downloaded attachment, ready for `UNNotificationAttachment(identifier:url:options:)`.
public struct DownloadedAttachment: Sendable, Equatable {
    /// The file, named with the media's extension.
    public var fileURL: URL
    /// The Content-Type the server sent.
    public var contentType: String?
    /// Where it was downloaded from.
    public var sourceURL: URL
}

/// Why an attachment could not be downloaded.
public enum AttachmentError: Error, Sendable, Equatable, CustomStringConvertible {
    case httpStatus(Int)
    case timedOut(seconds: TimeInterval)
    case unsupportedMediaType(contentType: String?, url: URL)
    case emptyBody
    case transport(String)
    case storage(String)
    /// Larger than ``AttachmentDownloader/maxBytes``: `bytes` is the announced Content-Length, or what had
    /// arrived when the download was stopped.
    case tooLarge(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .httpStatus(let status): return "the attachment server answered \(status); check the URL in the payload"
        case .timedOut(let seconds): return "the attachment did not arrive within \(seconds) s; send smaller media or raise timeBudget"
        case .unsupportedMediaType(let type, let url): return "\(url) is not an image, audio or video file (Content-Type \(type ?? "none")); give the URL a media extension or serve a media Content-Type"
        case .emptyBody: return "the attachment is empty"
        case .transport(let reason): return "the attachment could not be downloaded: \(reason)"
        case .storage(let reason): return "the attachment could not be saved: \(reason)"
        case .tooLarge(let bytes, let limit): return "the attachment is larger than the \(limit) bytes allowed (\(bytes) bytes or more); send smaller media, or raise AttachmentDownloader.maxBytes within the extension's memory"
        }
    }
}
