import Foundation
import Testing
import HeraldIO
import Synchronization
@testable import HeraldHTTP

/// Talks to the HTTP/1.1 server through a plain blocking socket, like curl would.
struct RawHTTPClient {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard rc == 0 else { throw IOError.system("connect", errno) }
        var tv = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) { _ = text.withCString { Glibc.send(fd, $0, strlen($0), 0) } }

    /// Reads until `marker` appears or the socket times out. The blocking reads run on a thread of their own
    /// so that the cooperative pool stays free for the server's handlers.
    func receive(until marker: String) async -> String {
        await withCheckedContinuation { cont in
            Thread.detachNewThread { cont.resume(returning: receiveBlocking(until: marker)) }
        }
    }

    private func receiveBlocking(until marker: String) -> String {
        var data = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 65536)
        while !String(decoding: data, as: UTF8.self).contains(marker) {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { break }
            data += buf[0..<n]
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// False when the connection refused the bytes (closed or reset).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// Half-close: the server sees EOF but can still answer.
    func shutdownWrite() { _ = shutdown(fd, Int32(SHUT_WR)) }

    /// Everything until the server closes (or `timeout` passes), and whether it closed.
    /// The default is long: a full suite run on 2 loaded cores has kept a test server from answering for over 10 s.
    func receiveUntilClosed(timeout seconds: Int = 60) async -> (text: String, closed: Bool) {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let fd = self.fd
        return await withCheckedContinuation { cont in
            Thread.detachNewThread {
                var data = [UInt8]()
                var buf = [UInt8](repeating: 0, count: 65536)
                var closed = false
                while true {
                    let n = recv(fd, &buf, buf.count, 0)
                    if n == 0 || (n < 0 && errno == ECONNRESET) { closed = true; break }
                    if n < 0 { break }
                    data += buf[0..<n]
                }
                cont.resume(returning: (String(decoding: data, as: UTF8.self), closed))
            }
        }
    }

    func close() { Glibc.close(fd) }
}

@Suite struct HTTP1ServerTests {
    static func echo(_ r: HTTPRequest) async -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["x-method": r.method, "x-q": r.queryValue("q") ?? "-"], body: Array("[\(r.path)|\(String(decoding: r.body, as: UTF8.self))]".utf8))
    }

    func start(maxBody: Int = 1 << 20) async throws -> HTTPServer {
        let server = try HTTPServer(configuration: .init(port: 0, maxBodyBytes: maxBody), handler: Self.echo)
        try await server.start()
        return server
    }

    @Test func keepAliveServesPipelinedRequestsInOrder() async throws {
        let server = try await start()
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("GET /a?q=x%20y HTTP/1.1\r\nHost: t\r\n\r\nPOST /b HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
        let text = await c.receive(until: "[/b|hello]")
        #expect(text.contains("x-q: x y"))
        let first = try #require(text.range(of: "[/a|]"))
        let second = try #require(text.range(of: "[/b|hello]"))
        #expect(first.lowerBound < second.lowerBound)
        await server.stop()
    }

    @Test func chunkedRequestBodyIsDecoded() async throws {
        let server = try await start()
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("PUT /c HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
        #expect(await c.receive(until: "]").contains("[/c|abcde]"))
        await server.stop()
    }

    @Test func oversizedBodyGets413WithJSONError() async throws {
        let server = try await start(maxBody: 10)
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("POST /big HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\n01234567890")
        let text = await c.receive(until: "}}")
        #expect(text.hasPrefix("HTTP/1.1 413"))
        #expect(text.contains(#""code":"body_too_large""#))
        await server.stop()
    }

    @Test func malformedRequestLineGets400() async throws {
        let server = try await start()
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("NONSENSE\r\n\r\n")
        #expect(await c.receive(until: "}}").hasPrefix("HTTP/1.1 400"))
        await server.stop()
    }

    @Test func streamedResponseUsesChunkedEncoding() async throws {
        let server = try HTTPServer(configuration: .init(port: 0)) { _ in
            HTTPResponse(status: 200, headers: ["content-type": "text/event-stream"], stream: AsyncStream { c in
                c.yield(Array("data: one\n\n".utf8))
                c.yield(Array("data: two\n\n".utf8))
                c.finish()
            })
        }
        try await server.start()
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
        let text = await c.receive(until: "0\r\n\r\n")
        #expect(text.contains("transfer-encoding: chunked"))
        #expect(text.contains("b\r\ndata: one\n\n\r\n"))
        #expect(text.contains("data: two"))
        await server.stop()
    }
}

@Suite struct HTTP1ClientTests {
    @Test func clientRoundTripsAgainstTheServer() async throws {
        let server = try HTTPServer(configuration: .init(port: 0)) { r in
            HTTPResponse(status: 201, headers: ["x-seen": r.headers["x-test"] ?? "-"], body: r.body.reversed())
        }
        try await server.start()
        let client = try HTTP1Client(url: "http://127.0.0.1:\(server.port)")
        let response = try await client.send(HTTPRequest(method: "POST", target: "/x", headers: ["x-test": "yes"], body: Array("abc".utf8)))
        #expect(response.status == 201)
        #expect(response.headers["x-seen"] == "yes")
        #expect(response.body == Array("cba".utf8))
        await server.stop()
    }

    @Test func clientReceivesAStreamedBodyPieceByPiece() async throws {
        let server = try HTTPServer(configuration: .init(port: 0)) { _ in
            HTTPResponse(status: 200, stream: AsyncStream { c in
                Task {
                    for i in 0..<3 { c.yield(Array("event \(i)\n".utf8)); try? await Task.sleep(for: .milliseconds(20)) }
                    c.finish()
                }
            })
        }
        try await server.start()
        let pieces = Mutex<[String]>([])
        let client = HTTP1Client(host: "127.0.0.1", port: server.port)
        let head = try await client.stream(HTTPRequest(method: "GET", target: "/events")) { bytes in
            pieces.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
        }
        #expect(head.status == 200)
        #expect(pieces.withLock { $0.joined() } == "event 0\nevent 1\nevent 2\n")
        #expect(pieces.withLock { $0.count } >= 2, "pieces arrived separately")
        await server.stop()
    }
}
