import Foundation
import Testing
@testable import HeraldClient

/// Collects what a content handler received.
final class DeliveredContent: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [String] = []
    var values: [String] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }
    func receive(_ value: String) {
        lock.lock()
        received.append(value)
        lock.unlock()
    }
}

@Suite struct AttachmentDeliveryTests {
    let attachByExtension: @Sendable (String, DownloadedAttachment) -> String? = { original, file in
        "\(original) + \(file.fileURL.pathExtension)"
    }

    func push(_ server: TestHTTPServer, _ path: String) -> PushNotification {
        PushNotification(userInfo: ["aps": ["alert": "x", "mutable-content": 1], "my-attachment": "\(server.baseURL)\(path)"])
    }

    @Test func theAttachmentIsAddedWhenItArrivesInTime() async throws {
        let server = try TestHTTPServer(fallback: { _ in .respond(status: 200, body: "jpg", headers: ["Content-Type": "image/jpeg"]) })
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let delivered = DeliveredContent()
        let delivery = AttachmentDelivery(original: "content") { delivered.receive($0) }
        await delivery.run(push(server, "/a"), with: AttachmentDownloader(payloadKey: "my-attachment", timeBudget: 5, directory: directory.url),
                           attach: attachByExtension)
        delivery.expire()
        #expect(delivered.values == ["content + jpg"])
    }

    @Test func aMissingAttachmentDeliversTheContentAsItCame() async throws {
        let server = try TestHTTPServer(fallback: { _ in .respond(status: 404) })
        defer { server.stop() }
        let delivered = DeliveredContent()
        let delivery = AttachmentDelivery(original: "content") { delivered.receive($0) }
        await delivery.run(push(server, "/gone.jpg"), with: AttachmentDownloader(payloadKey: "my-attachment", timeBudget: 5),
                           attach: attachByExtension)
        #expect(delivered.values == ["content"])
    }

    @Test func whenTimeRunsOutFirstTheOriginalIsDeliveredOnceAndTheLateDownloadIgnored() async throws {
        let server = try TestHTTPServer(fallback: { _ in .respond(status: 200, body: "png", headers: ["Content-Type": "image/png"], delay: 0.4) })
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let delivered = DeliveredContent()
        let delivery = AttachmentDelivery(original: "content") { delivered.receive($0) }
        let running = Task {
            await delivery.run(push(server, "/slow"), with: AttachmentDownloader(payloadKey: "my-attachment", timeBudget: 5, directory: directory.url),
                               attach: attachByExtension)
        }
        try await Task.sleep(nanoseconds: 100_000_000)
        delivery.expire()
        #expect(delivered.values == ["content"])
        await running.value
        #expect(delivered.values == ["content"])
        #expect(delivery.isDelivered)
    }

    @Test func anAttachStepThatFailsDeliversTheOriginal() async throws {
        let server = try TestHTTPServer(fallback: { _ in .respond(status: 200, body: "gif", headers: ["Content-Type": "image/gif"]) })
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let delivered = DeliveredContent()
        let delivery = AttachmentDelivery(original: "content") { delivered.receive($0) }
        await delivery.run(push(server, "/a"), with: AttachmentDownloader(payloadKey: "my-attachment", timeBudget: 5, directory: directory.url),
                           attach: { _, _ in nil })
        #expect(delivered.values == ["content"])
    }
}
