import Foundation
import Testing
@testable import HeraldClient

@Suite struct AttachmentDownloaderTests {

    func push(_ url: String, key: String = "my-attachment") -> PushNotification {
        PushNotification(userInfo: ["aps": ["alert": "x", "mutable-content": 1], key: url])
    }

    @Test func downloadsIntoAFileNamedByTheContentType() async throws {
        let server = try TestHTTPServer(fallback: { _ in .respond(status: 200, body: "png-bytes", headers: ["Content-Type": "image/png"]) })
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let downloader = AttachmentDownloader(payloadKey: "my-attachment", timeBudget: 5, directory: directory.url)

        let file = try #require(await downloader.downloadAttachment(for: push("\(server.baseURL)/media/12345")))

        #expect(file.fileURL.pathExtension == "png")
        #expect(file.fileURL.path.hasPrefix(directory.url.path))
        #expect(try Data(contentsOf: file.fileURL) == Data("png-bytes".utf8))
        #expect(file.contentType == "image/png")
        #expect(server.requests.first?.path == "/media/12345")
    }

    @Test func theURLPathExtensionIsUsedWhenTheContentTypeSaysNothing() async throws {
        let server = try TestHTTPServer(fallback: { _ in .respond(status: 200, body: "gif", headers: ["Content-Type": "application/octet-stream"]) })
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let downloader = AttachmentDownloader(payloadKey: "my-attachment", timeBudget: 5, directory: directory.url)
        let file = try await downloader.download(from: URL(string: "\(server.baseURL)/003/hello.GIF")!)
        #expect(file.fileURL.pathExtension == "gif")
    }

    @Test func aSlowServerRunsOutTheBudgetAndGivesNoAttachment() async throws {
        let server = try TestHTTPServer(fallback: { _ in .respond(status: 200, body: "late", headers: ["Content-Type": "image/jpeg"], delay: 30) })
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let downloader = AttachmentDownloader(payloadKey: "my-attachment", timeBudget: 0.3, directory: directory.url)
        // Each attempt ends below the server's 30 s: the budget cut it short. Timed one by one and loose:
        // URLSession's cancellation is slow to return on loaded cores (12.4 s and 26.9 s for both attempts
        // together in two full suites), but an attempt the budget did not cut waits the full 30 s.
        var started = Date()
        await #expect(throws: AttachmentError.timedOut(seconds: 0.3)) {
            try await downloader.download(from: URL(string: "\(server.baseURL)/slow.jpg")!)
        }
        #expect(Date().timeIntervalSince(started) < 29)
        started = Date()
        #expect(await downloader.downloadAttachment(for: push("\(server.baseURL)/slow.jpg")) == nil)
        #expect(Date().timeIntervalSince(started) < 29)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func aMissingFileGivesNoAttachment() async throws {
        let server = try TestHTTPServer(fallback: { _ in .respond(status: 404, body: "nope") })
        defer { server.stop() }
        let downloader = AttachmentDownloader(payloadKey: "my-attachment", timeBudget: 5)
        await #expect(throws: AttachmentError.httpStatus(404)) {
            try await downloader.download(from: URL(string: "\(server.baseURL)/gone.jpg")!)
        }
        #expect(await downloader.downloadAttachment(for: push("\(server.baseURL)/gone.jpg")) == nil)
    }

    @Test func somethingThatIsNotMediaGivesNoAttachment() async throws {
        let server = try TestHTTPServer(fallback: { _ in .respond(status: 200, body: "<html>", headers: ["Content-Type": "text/html"]) })
        defer { server.stop() }
        let downloader = AttachmentDownloader(payloadKey: "my-attachment", timeBudget: 5)
        await #expect(throws: AttachmentError.self) {
            try await downloader.download(from: URL(string: "\(server.baseURL)/page")!)
        }
    }

    @Test func anUnreachableHostGivesNoAttachment() async throws {
        let server = try TestHTTPServer(listening: false)
        defer { server.stop() }
        let downloader = AttachmentDownloader(payloadKey: "my-attachment", timeBudget: 5)
        #expect(await downloader.downloadAttachment(for: push("\(server.baseURL)/a.jpg")) == nil)
    }

    @Test func theURLIsTakenFromTheConfiguredKeyOnlyAndMustBeHTTP() {
        let downloader = AttachmentDownloader(payloadKey: "my-attachment")
        #expect(downloader.attachmentURL(in: push("https://cdn.example.com/a.jpg"))?.host == "cdn.example.com")
        #expect(downloader.attachmentURL(in: push("https://cdn.example.com/a.jpg", key: "other")) == nil)
        #expect(downloader.attachmentURL(in: push("file:///etc/passwd")) == nil)
        #expect(downloader.attachmentURL(in: push("not a url")) == nil)
        let nested = PushNotification(userInfo: ["aps": ["alert": "x", "my-attachment": "https://cdn.example.com/b.png"]])
        #expect(downloader.attachmentURL(in: nested)?.lastPathComponent == "b.png")
    }
}

/// The size limit: a notification service extension has about 24 MB of memory in all.
@Suite struct AttachmentSizeLimitTests {
    @Test func theDefaultLimitFitsAnExtension() {
        #expect(AttachmentDownloader().maxBytes == 10 << 20)
    }

    @Test func anAnnouncedLengthOverTheLimitIsRefusedBeforeTheBody() async throws {
        let body = String(repeating: "x", count: 4_096)
        let server = try TestHTTPServer(fallback: { _ in .respond(status: 200, body: body, headers: ["Content-Type": "image/png"]) })
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let downloader = AttachmentDownloader(timeBudget: 5, directory: directory.url, maxBytes: 1_000)
        await #expect(throws: AttachmentError.tooLarge(bytes: 4_096, limit: 1_000)) {
            try await downloader.download(from: URL(string: "\(server.baseURL)/big.png")!)
        }
        #expect(AttachmentError.tooLarge(bytes: 4_096, limit: 1_000).description.contains("maxBytes"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func aBodyWithoutLengthIsStoppedOnceItPassesTheLimit() async throws {
        let server = try TestHTTPServer(fallback: { _ in .unsized(body: String(repeating: "y", count: 200_000), headers: ["Content-Type": "image/png"]) })
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let downloader = AttachmentDownloader(timeBudget: 5, directory: directory.url, maxBytes: 10_000)
        do {
            _ = try await downloader.download(from: URL(string: "\(server.baseURL)/stream.png")!)
            Issue.record("a body over the limit was kept")
        } catch let AttachmentError.tooLarge(bytes, limit) {
            #expect(bytes > 10_000 && limit == 10_000)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func aBodyWithinTheLimitIsKept() async throws {
        let server = try TestHTTPServer(fallback: { _ in .unsized(body: String(repeating: "z", count: 5_000), headers: ["Content-Type": "image/png"]) })
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let downloader = AttachmentDownloader(timeBudget: 5, directory: directory.url, maxBytes: 5_000)
        let file = try await downloader.download(from: URL(string: "\(server.baseURL)/ok.png")!)
        #expect(try Data(contentsOf: file.fileURL).count == 5_000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == [file.fileURL.lastPathComponent])
    }
}
