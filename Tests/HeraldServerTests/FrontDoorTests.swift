import Foundation
import Testing
import HeraldHTTP
@testable import HeraldServer
import HeraldProvider

/// `herald serve`'s REST port against the hardening report's requests, none with a key: each is answered
/// from what it sent, nothing is buffered past a route's limit, and the server keeps serving.
@Suite struct FrontDoorTests {
    /// Writes `request` as raw bytes on a new connection and reads until the server closes it: the shapes
    /// sent here are ones a well-behaved client library would refuse to send.
    static func raw(_ port: Int, _ request: String) async -> String {
        await withCheckedContinuation { cont in
            Thread.detachNewThread {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                defer { close(fd) }
                var addr = sockaddr_in()
                addr.sin_family = sa_family_t(AF_INET)
                addr.sin_port = UInt16(port).bigEndian
                addr.sin_addr.s_addr = inet_addr("127.0.0.1")
                var tv = timeval(tv_sec: 10, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
                _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                var data = [UInt8]()
                var buf = [UInt8](repeating: 0, count: 65536)
                while case let n = recv(fd, &buf, buf.count, 0), n > 0 { data += buf[0..<n] }
                cont.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
    }

    func start() async throws -> ProviderServer {
        var settings = ProviderServer.Settings()
        settings.port = 0
        settings.simulatorInspectionPort = nil
        settings.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-door-\(UUID().uuidString)").path
        settings.service.databasePath = settings.dataDirectory + "/herald.sqlite"
        return try await ProviderServer.start(settings, log: { _, _ in })
    }

    @Test func hostileRequestsWithoutAKeyAreAnsweredFromTheirHead() async throws {
        let server = try await start()
        let port = server.port
        // Any key at all lets the body be read; the broken chunk is refused before the key is even looked up.
        let negativeChunk = await Self.raw(port, "POST /v1/installations HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer guess\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\nab\r\n0\r\n\r\n")
        #expect(negativeChunk.hasPrefix("HTTP/1.1 400"))
        // 200 MiB announced and never sent: an open route's limit and a missing key are both known from the head.
        let huge = "Content-Length: 209715200\r\n\r\n"
        #expect(await Self.raw(port, "GET /healthz HTTP/1.1\r\nHost: h\r\n" + huge).hasPrefix("HTTP/1.1 413"))
        let noKey = await Self.raw(port, "POST /v1/installations HTTP/1.1\r\nHost: h\r\n" + huge)
        #expect(noKey.hasPrefix("HTTP/1.1 401"))
        #expect(noKey.contains(#""code":"unauthorized""#))
        #expect(await Self.raw(port, "POST /v1/installations/import HTTP/1.1\r\nHost: h\r\n" + huge).hasPrefix("HTTP/1.1 401"))
        let health = await Self.raw(port, "GET /healthz HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        #expect(health.hasPrefix("HTTP/1.1 200"), "the server is still up")
        await server.stop()
    }

    @Test func anImportLargerThanTheBodyLimitStreamsIn() async throws {
        let server = try await start()
        let master = try #require(server.bootstrap.masterKey)
        // Twice the limit of every other route (1 MiB) in JSON lines.
        let pad = String(repeating: ".", count: 120)
        let lines = (0..<8_000).map { i in
            #"{"installationId":"door-\#(i)","deviceToken":"\#(String(format: "%064x", i + 1))","tags":["bulk","t\#(i % 7)"],"locale":"en_US","properties":{"n":\#(i),"pad":"\#(pad)"}}"#
        }
        let body = Array(lines.joined(separator: "\n").utf8)
        #expect(body.count > 2 << 20)
        let client = HTTP1Client(host: "127.0.0.1", port: server.port)
        let response = try await client.send(HTTPRequest(method: "POST", target: "/v1/installations/import?format=jsonl",
                                                         headers: ["authorization": "Bearer \(master)"], body: body))
        let result = try JSON(parsing: response.body)
        #expect(response.status == 200)
        #expect(result["created"]?.intValue == 8_000)
        #expect(result["failed"]?.intValue == 0)
        await server.stop()
    }
}
