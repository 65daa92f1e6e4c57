import Foundation
import Testing
import HeraldIO
import Synchronization
@testable import HeraldHTTP

/// The HTTP/1.1 front door against hostile and careless clients, over real sockets: each reproduction from
/// the hardening report, and the limits and timeouts that keep one client from taking the server down.
@Suite struct HTTP1HardeningTests {
    static func echo(_ r: HTTPRequest) async -> HTTPResponse {
        HTTPResponse(status: 200, body: Array("\(r.method) \(r.path) \(r.body.count)".utf8))
    }

    func start(limits: HTTP1Limits = HTTP1Limits(), maxBody: Int = 1 << 20, bodyPolicy: HTTPBodyPolicyProvider? = nil,
               handler: @escaping HTTPHandler = Self.echo) async throws -> HTTPServer {
        let server = try HTTPServer(configuration: .init(port: 0, maxBodyBytes: maxBody, limits: limits), bodyPolicy: bodyPolicy, handler: handler)
        try await server.start()
        return server
    }

    /// A request on a new connection still gets its answer: the server survived what came before.
    func expectAlive(_ server: HTTPServer) async throws {
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("GET /alive HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(await c.receive(until: "GET /alive 0").contains("200 OK"))
    }

    func exchange(_ server: HTTPServer, _ request: String) async throws -> (text: String, closed: Bool) {
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send(request)
        return await c.receiveUntilClosed()
    }

    @Test func aNegativeChunkSizeGets400AndTheServerLives() async throws {
        let server = try await start()
        let r = try await exchange(server, "POST /v1/installations HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\nab\r\n0\r\n\r\n")
        #expect(r.text.hasPrefix("HTTP/1.1 400"))
        #expect(r.text.contains(#""code":"bad_request""#))
        #expect(r.closed)
        try await expectAlive(server)
        await server.stop()
    }

    @Test func anOverflowingChunkSizeGets400AndTheServerLives() async throws {
        let server = try await start()
        let r = try await exchange(server, "POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n7fffffffffffffff\r\nb\r\n")
        #expect(r.text.hasPrefix("HTTP/1.1 400"))
        try await expectAlive(server)
        await server.stop()
    }

    @Test func smugglingShapesGet400AndTheConnectionCloses() async throws {
        let server = try await start()
        for request in [
            "POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: t\r\n\r\n",
            "POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nContent-Length: 44\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: t\r\n\r\n",
            "POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: t\r\n\r\n",
            "POST /x HTTP/1.1\r\nHost: t\r\nX: y\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: t\r\n\r\n",
        ] {
            let r = try await exchange(server, request)
            #expect(r.text.hasPrefix("HTTP/1.1 400"), "\(request)")
            #expect(!r.text.contains("/smuggled"), "nothing after a refused request is served")
            #expect(r.closed)
        }
        await server.stop()
    }

    @Test func aLongRequestLineOrTooManyHeadersInOneReadAreRefused() async throws {
        let server = try await start()
        let long = try await exchange(server, "GET /" + String(repeating: "a", count: 70_000) + " HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(long.text.hasPrefix("HTTP/1.1 414"))
        let many = try await exchange(server, "GET / HTTP/1.1\r\nHost: t\r\n" + (0..<10_000).map { "X-\($0): v\r\n" }.joined() + "\r\n")
        #expect(many.text.hasPrefix("HTTP/1.1 431"))
        await server.stop()
    }

    @Test func aBodyIsRefusedFromItsHeadBeforeItIsSent() async throws {
        // The policy refuses requests without a key, as the REST API does, and limits bodies to 1 KiB.
        let server = try await start(bodyPolicy: { head in
            head.headers["authorization"] == nil ? .reject(HTTPResponse(status: 401, json: #"{"error":{"code":"unauthorized","message":"no key","field":null}}"#))
                : .collect(limit: 1024)
        })
        // 200 MiB announced, none sent: both answers come from the head alone.
        let noKey = try await exchange(server, "POST /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 209715200\r\n\r\n")
        #expect(noKey.text.hasPrefix("HTTP/1.1 401"))
        #expect(noKey.closed, "the unread body cannot be told from a next request: the connection closes")
        let tooBig = try await exchange(server, "POST /healthz HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer k\r\nContent-Length: 209715200\r\n\r\n")
        #expect(tooBig.text.hasPrefix("HTTP/1.1 413"))
        #expect(tooBig.text.contains(#""code":"body_too_large""#))
        // A chunked body is cut off at the limit, not buffered to the end.
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("POST /x HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer k\r\nTransfer-Encoding: chunked\r\n\r\n")
        c.send(Array(String(repeating: "400\r\n" + String(repeating: "z", count: 1024) + "\r\n", count: 4).utf8))
        let chunked = await c.receiveUntilClosed()
        #expect(chunked.text.hasPrefix("HTTP/1.1 413"))
        await server.stop()
    }

    @Test func expectContinueGetsAGoAheadOrTheFinalAnswer() async throws {
        let server = try await start(bodyPolicy: { head in head.path == "/no" ? .reject(HTTPResponse(status: 403)) : .collect(limit: 1024) })
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("PUT /yes HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
        #expect(await c.receive(until: "\r\n\r\n").hasPrefix("HTTP/1.1 100 Continue"))
        c.send("abc")
        #expect(await c.receive(until: "PUT /yes 3").contains("200 OK"))
        let refused = try await exchange(server, "PUT /no HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
        #expect(refused.text.hasPrefix("HTTP/1.1 403"))
        #expect(!refused.text.contains("100 Continue"))
        await server.stop()
    }

    @Test func aClientThatHalfClosesAlwaysGetsItsResponse() async throws {
        let server = try await start(handler: { r in
            try? await Task.sleep(for: .milliseconds(2))
            return await Self.echo(r)
        })
        for i in 0..<40 {
            let c = try RawHTTPClient(port: server.port)
            c.send("POST /half/\(i) HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhi")
            c.shutdownWrite()
            // A lost response shows as a close with no answer; a slow one (a full suite starting everything at
            // once on 2 cores once took over the default 10 s) only as a late answer: wait long for it.
            let r = await c.receiveUntilClosed(timeout: 60)
            c.close()
            #expect(r.text.contains("POST /half/\(i) 2"), "response \(i) was lost (connection closed: \(r.closed))")
        }
        await server.stop()
    }

    @Test func aSlowHeadGets408AndIsClosed() async throws {
        var limits = HTTP1Limits()
        limits.headerTimeout = .milliseconds(300)
        let server = try await start(limits: limits)
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("GET / HTTP/1.1\r\nHost: t\r\nX-Slow: a")   // a slowloris never sends the blank line
        let r = await c.receiveUntilClosed()
        #expect(r.text.hasPrefix("HTTP/1.1 408"))
        #expect(r.closed)
        await server.stop()
    }

    @Test func aStalledBodyGets408() async throws {
        var limits = HTTP1Limits()
        limits.bodyTimeout = .milliseconds(300)
        let server = try await start(limits: limits)
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
        let r = await c.receiveUntilClosed()
        #expect(r.text.hasPrefix("HTTP/1.1 408"))
        #expect(r.closed)
        await server.stop()
    }

    @Test func anIdleConnectionIsClosed() async throws {
        var limits = HTTP1Limits()
        limits.idleTimeout = .milliseconds(300)
        let server = try await start(limits: limits)
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("GET /first HTTP/1.1\r\nHost: t\r\n\r\n")
        let r = await c.receiveUntilClosed()
        #expect(r.text.contains("GET /first 0"), "the request before the idle time is answered")
        #expect(r.closed)
        #expect(!r.text.contains("408"), "an idle keep-alive connection closes quietly")
        await server.stop()
    }

    @Test func connectionsPastTheLimitAreClosedAtOnce() async throws {
        var limits = HTTP1Limits()
        limits.maxConnections = 4
        let server = try await start(limits: limits)
        let held = try (0..<4).map { _ in try RawHTTPClient(port: server.port) }
        for _ in 0..<100 where server.connectionCount < 4 { try await Task.sleep(for: .milliseconds(10)) }
        let extra = try RawHTTPClient(port: server.port)
        extra.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let refused = await extra.receiveUntilClosed()
        extra.close()
        #expect(refused.closed && refused.text.isEmpty)
        #expect(server.refusedConnections == 1)
        held[0].close()
        for _ in 0..<100 where server.connectionCount > 3 { try await Task.sleep(for: .milliseconds(10)) }
        try await expectAlive(server)
        held.dropFirst().forEach { $0.close() }
        await server.stop()
    }

    @Test func aClientThatNeverReadsItsResponseIsDropped() async throws {
        var limits = HTTP1Limits()
        limits.writeTimeout = .milliseconds(300)
        let big = [UInt8](repeating: 0x61, count: 16 << 20)
        let server = try await start(limits: limits, handler: { _ in HTTPResponse(status: 200, body: big) })
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        for _ in 0..<300 where server.connectionCount > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(server.connectionCount == 0)
        await server.stop()
    }

    @Test func aLongStreamedResponseToAReadingClientOutlivesEveryTimeout() async throws {
        var limits = HTTP1Limits()
        // The idle timeout also runs between connecting and the request: wide enough that a busy machine
        // cannot delay the request past it, and still shorter than the stream.
        limits.writeTimeout = .milliseconds(200)
        limits.idleTimeout = .seconds(1)
        let server = try await start(limits: limits, handler: { _ in
            HTTPResponse(status: 200, stream: AsyncStream { c in
                Task {
                    for i in 0..<16 {
                        c.yield(Array("event \(i)\n".utf8))
                        try? await Task.sleep(for: .milliseconds(100))
                    }
                    c.finish()
                }
            })
        })
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
        let text = await c.receive(until: "0\r\n\r\n")
        #expect(text.contains("event 15"), "a client that reads is never cut off, however long the stream")
        await server.stop()
    }

    @Test func aStreamedBodyArrivesWholeWithBackpressureAndStopsAtItsLimit() async throws {
        let received = Mutex<[Int]>([])
        let server = try await start(bodyPolicy: { _ in .stream(limit: 8 << 20) }, handler: { r in
            guard let body = r.bodyStream else { return HTTPResponse(status: 500) }
            var total = 0, pieces = 0
            do {
                for try await piece in body {
                    total += piece.count
                    pieces += 1
                    // A slow consumer, but not one a loaded machine makes slower than the body timeout: a
                    // sleep per piece cost a timer round each, and a full suite run once took over 30 s.
                    if pieces % 16 == 0 { try? await Task.sleep(for: .microseconds(50)) }
                }
            } catch let error as HTTPBodyError {
                return HTTPResponse(status: 413, body: Array("\(error)".utf8))
            } catch {
                return HTTPResponse(status: 500)
            }
            received.withLock { $0.append(total) }
            return HTTPResponse(status: 200, body: Array("got \(total)".utf8))
        })
        let c = try RawHTTPClient(port: server.port)
        let size = 6 << 20
        c.send("POST /import HTTP/1.1\r\nHost: t\r\nContent-Length: \(size)\r\n\r\n")
        let body = BackgroundSender(c, pieces: 1) { _ in [UInt8](repeating: 0x7B, count: size) }
        #expect(await c.receive(until: "got \(size)").contains("200 OK"))
        body.stopThenClose()
        let over = try RawHTTPClient(port: server.port)
        over.send("POST /import HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunks = BackgroundSender(over, pieces: (9 << 20) / 65536) { _ in
            Array("10000\r\n".utf8) + [UInt8](repeating: 0x7B, count: 65536) + Array("\r\n".utf8)
        }
        let r = await over.receiveUntilClosed()
        chunks.stopThenClose()
        #expect(r.text.hasPrefix("HTTP/1.1 413"))
        #expect(r.text.contains("larger than the limit"))
        await server.stop()
    }
}

/// The review's findings against the first version of the front door, each as the scenario it described.
@Suite struct HTTP1SlowClientTests {
    func start(_ limits: HTTP1Limits, tls: Bool = false, handler: @escaping HTTPHandler = HTTP1HardeningTests.echo) async throws -> HTTPServer {
        let server = try HTTPServer(configuration: .init(port: 0, limits: limits,
                                                         tls: tls ? TLSServerConfiguration(identity: TestCertificates.shared.serverIdentity) : nil),
                                    handler: handler)
        try await server.start()
        return server
    }

    @Test func aSilentTLSClientIsClosedAtTheHeaderTimeout() async throws {
        var limits = HTTP1Limits()
        limits.headerTimeout = .milliseconds(300)
        let server = try await start(limits, tls: true)
        let c = try RawHTTPClient(port: server.port)   // connects, never says hello
        defer { c.close() }
        let r = await c.receiveUntilClosed(timeout: 5)
        #expect(r.closed, "a handshake that never starts must not hold a connection slot")
        await server.stop()
    }

    @Test func lineEndsTrickledBeforeARequestDoNotKeepItOpen() async throws {
        var limits = HTTP1Limits()
        limits.headerTimeout = .milliseconds(300)
        limits.idleTimeout = .seconds(30)
        let server = try await start(limits)
        let c = try RawHTTPClient(port: server.port)
        let sender = BackgroundSender(c, pieces: 100, every: 0.05) { _ in [13, 10] }
        let r = await c.receiveUntilClosed(timeout: 10)
        sender.stopThenClose()
        #expect(r.text.hasPrefix("HTTP/1.1 408"))
        #expect(r.closed)
        await server.stop()
    }

    @Test func aBodyDrippedJustUnderTheTimeoutIsCutOff() async throws {
        var limits = HTTP1Limits()
        limits.bodyTimeout = .milliseconds(300)
        let server = try await start(limits)
        let c = try RawHTTPClient(port: server.port)
        c.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n")
        let sender = BackgroundSender(c, pieces: 100, every: 0.2) { _ in [0x61] }   // never 300 ms of silence
        let r = await c.receiveUntilClosed(timeout: 10)
        sender.stopThenClose()
        #expect(r.text.hasPrefix("HTTP/1.1 408"))
        await server.stop()
    }

    @Test func aHalfClosedClientGetsALargeResponseWhole() async throws {
        let big = [UInt8](repeating: 0x62, count: 8 << 20)
        let server = try await start(HTTP1Limits(), handler: { _ in HTTPResponse(status: 200, body: big) })
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
        c.shutdownWrite()
        try await Task.sleep(for: .milliseconds(300))   // the kernel's buffers fill; the rest waits in the server
        let r = await c.receiveUntilClosed()
        #expect(r.closed)
        #expect(r.text.utf8.count >= big.count, "got \(r.text.utf8.count) of \(big.count) body bytes")
        await server.stop()
    }

    @Test func aStreamedResponseWaitsForASlowReaderAndLosesNothing() async throws {
        let pieces = 400
        let server = try await start(HTTP1Limits(), handler: { _ in
            HTTPResponse(status: 200, stream: AsyncStream { c in
                for i in 0..<pieces { c.yield(Array(String(format: "%05d", i).utf8) + [UInt8](repeating: 0x2E, count: 4091)) }
                c.finish()
            })
        })
        let c = try RawHTTPClient(port: server.port)
        defer { c.close() }
        c.send("GET /slow HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        try await Task.sleep(for: .milliseconds(200))
        let r = await c.receiveUntilClosed()
        for i in [0, 199, 399] { #expect(r.text.contains(String(format: "%05d", i))) }
        #expect(r.text.hasSuffix("0\r\n\r\n"))
        await server.stop()
    }
}

/// Sends pieces from a thread of its own until they are sent, a send fails, or it is stopped. The socket
/// is closed only once the thread has stopped: a send after the close could land in whatever socket reused
/// the descriptor (it once landed in another test's database connection).
final class BackgroundSender: @unchecked Sendable {
    private let client: RawHTTPClient
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(_ client: RawHTTPClient, pieces: Int, every interval: TimeInterval = 0, piece: @escaping @Sendable (Int) -> [UInt8]) {
        self.client = client
        Thread.detachNewThread { [self] in
            for i in 0..<pieces where !stopped.load(ordering: .acquiring) {
                guard client.send(piece(i)) else { break }
                if interval > 0 { Thread.sleep(forTimeInterval: interval) }
            }
            finished.signal()
        }
    }

    func stopThenClose() {
        stopped.store(true, ordering: .releasing)
        finished.wait()
        client.close()
    }
}
