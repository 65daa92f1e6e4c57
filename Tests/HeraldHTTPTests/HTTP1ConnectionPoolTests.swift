import Foundation
import Testing
import Synchronization
import HeraldIO
@testable import HeraldHTTP

/// A receiver on a real socket that answers each request as its script says, so tests can see what a client
/// does with connections: how many it opens, which requests share one, what it does when one is closed.
/// Blocking sockets on threads of their own, away from the loops under test.
final class ScriptedHTTPReceiver: Sendable {
    /// What to do with request `request` (0-based) of connection `connection` (0-based): the bytes to answer
    /// with (nil: none), then whether to close.
    typealias Script = @Sendable (_ connection: Int, _ request: Int) -> (answer: String?, close: Bool)

    struct Seen: Sendable { var connection: Int; var head: String; var body: String }

    let port: Int
    private let listener: Int32
    private let script: Script
    private let answersAfterHead: Bool
    private let state = Mutex((connections: 0, requests: [Seen](), ended: Set<Int>(), stopped: false))

    /// `answersAfterHead`: answer each request as soon as its head is read, never read its body, and hold the
    /// connection open until `stop()` (a receiver that refuses a body early).
    init(answersAfterHead: Bool = false, _ script: @escaping Script) throws {
        self.script = script
        self.answersAfterHead = answersAfterHead
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(listener, 16) == 0 else { throw IOError.system("bind", errno) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        port = Int(UInt16(bigEndian: addr.sin_port))
        self.listener = listener
        Thread.detachNewThread { [self] in
            while true {
                let fd = accept(listener, nil, nil)
                if fd < 0 { return }
                let index = state.withLock { s -> Int in defer { s.connections += 1 }; return s.connections }
                Thread.detachNewThread { self.serve(fd, connection: index) }
            }
        }
    }

    /// Stops accepting (connections already open run their script to the end).
    func stop() {
        state.withLock { $0.stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
    }

    var connections: Int { state.withLock { $0.connections } }
    var requests: [Seen] { state.withLock { $0.requests } }
    /// Connections whose peer (the client) closed them.
    var closedByClient: Set<Int> { state.withLock { $0.ended } }

    private func serve(_ fd: Int32, connection: Int) {
        defer { Glibc.close(fd) }
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        var request = 0
        while true {
            // One request: the head, then Content-Length bytes of body.
            var headEnd = buffer.firstRange(of: [13, 10, 13, 10])
            while headEnd == nil {
                let n = recv(fd, &chunk, chunk.count, 0)
                if n <= 0 { state.withLock { _ = $0.ended.insert(connection) }; return }
                buffer += chunk[0..<n]
                headEnd = buffer.firstRange(of: [13, 10, 13, 10])
            }
            let head = String(decoding: buffer[..<headEnd!.lowerBound], as: UTF8.self)
            buffer.removeSubrange(..<headEnd!.upperBound)
            let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            if answersAfterHead {
                state.withLock { $0.requests.append(Seen(connection: connection, head: head, body: "")) }
                if let answer = script(connection, request).answer {
                    _ = answer.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                }
                while !state.withLock({ $0.stopped }) { usleep(10_000) }
                return
            }
            while buffer.count < length {
                let n = recv(fd, &chunk, chunk.count, 0)
                if n <= 0 { return }
                buffer += chunk[0..<n]
            }
            let body = String(decoding: buffer[..<length], as: UTF8.self)
            buffer.removeSubrange(..<length)
            state.withLock { $0.requests.append(Seen(connection: connection, head: head, body: body)) }
            let (answer, close) = script(connection, request)
            if let answer { _ = answer.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }
            if close { return }
            request += 1
        }
    }

    static func ok(_ body: String, headers: String = "") -> String {
        "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\(headers)\r\n\(body)"
    }
}

@Suite struct HTTP1ConnectionPoolTests {
    /// Long enough that a loaded machine never closes a connection between two requests of a test; the idle
    /// timeout has a test of its own.
    static let patient = Duration.seconds(600)

    func post(_ receiver: ScriptedHTTPReceiver, _ pool: HTTP1ConnectionPool, _ body: String) async throws -> (status: Int, body: String) {
        let client = HTTP1Client(host: "127.0.0.1", port: receiver.port, pool: pool)
        let response = try await client.send(HTTPRequest(method: "POST", target: "/hook", headers: ["content-type": "application/json"],
                                                         body: Array(body.utf8)), timeout: .seconds(20))
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    @Test func postsToOneReceiverShareOneConnection() async throws {
        // Answers framed every way that allows reuse: a length, chunks (with a trailer), and none (204).
        let receiver = try ScriptedHTTPReceiver { _, request in
            switch request % 3 {
            case 0: (ScriptedHTTPReceiver.ok("ok \(request)"), false)
            case 1: ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nok \r\n1\r\n\(request)\r\n0\r\nX-Trailer: t\r\n\r\n", false)
            default: ("HTTP/1.1 204 No Content\r\n\r\n", false)
            }
        }
        defer { receiver.stop() }
        let pool = HTTP1ConnectionPool(idleTimeout: Self.patient)
        for i in 0..<6 {
            let answer = try await post(receiver, pool, "{\"n\":\(i)}")
            #expect(answer.status == (i % 3 == 2 ? 204 : 200))
            #expect(answer.body == (i % 3 == 2 ? "" : "ok \(i)"))
        }
        #expect(receiver.connections == 1)
        #expect(receiver.requests.map(\.body) == (0..<6).map { "{\"n\":\($0)}" })
        #expect(receiver.requests.allSatisfy { !$0.head.lowercased().contains("connection: close") })
        #expect(pool.opened == 1 && pool.reused == 5)
    }

    @Test func anAnswerThatClosesOrRunsToTheEndIsNotReused() async throws {
        // The first connection says it closes; the others send a body with no length, ended by closing.
        let receiver = try ScriptedHTTPReceiver { connection, _ in
            connection == 0
                ? (ScriptedHTTPReceiver.ok("bye", headers: "Connection: close\r\n"), true)
                : ("HTTP/1.1 200 OK\r\n\r\nuntil the end", true)
        }
        defer { receiver.stop() }
        let pool = HTTP1ConnectionPool()
        for i in 0..<3 {
            let answer = try await post(receiver, pool, "{}")
            #expect(answer.status == 200)
            #expect(answer.body == (i == 0 ? "bye" : "until the end"))
        }
        #expect(receiver.connections == 3)
        #expect(pool.reused == 0)
    }

    static let timedOut = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"

    /// The first connection answers once, then gives up on itself as a server does when its idle timeout and the
    /// client's next request cross: it reads the second request and closes without a word (nil), or answers
    /// "408 Request Timeout" and closes.
    @Test(arguments: [nil, timedOut])
    func aKeptConnectionItsReceiverGaveUpOnSendsTheRequestAgainOnANewOne(lastWord: String?) async throws {
        let receiver = try ScriptedHTTPReceiver { connection, request in
            connection == 0 && request == 1 ? (lastWord, true) : (ScriptedHTTPReceiver.ok("ok \(connection).\(request)"), false)
        }
        defer { receiver.stop() }
        let pool = HTTP1ConnectionPool(idleTimeout: Self.patient)
        #expect(try await post(receiver, pool, "first").body == "ok 0.0")
        #expect(try await post(receiver, pool, "second").body == "ok 1.0")
        #expect(receiver.requests.map(\.body) == ["first", "second", "second"])
        #expect(receiver.requests.map(\.connection) == [0, 0, 1])
        #expect(pool.opened == 2)
    }

    @Test func a408OnANewConnectionIsTheAnswer() async throws {
        let receiver = try ScriptedHTTPReceiver { _, _ in (Self.timedOut, true) }
        defer { receiver.stop() }
        #expect(try await post(receiver, HTTP1ConnectionPool(), "once").status == 408)
        #expect(receiver.requests.count == 1)
    }

    @Test func aConnectionAnsweredBeforeItsBodyWasWrittenIsNotReused() async throws {
        // The receiver answers after the head and never reads the body: 16 MiB cannot all leave the client's
        // buffers, so the rest of it would reach the receiver ahead of a next request on the same connection.
        let receiver = try ScriptedHTTPReceiver(answersAfterHead: true) { _, _ in
            (ScriptedHTTPReceiver.ok("too large"), false)
        }
        defer { receiver.stop() }
        let pool = HTTP1ConnectionPool(idleTimeout: Self.patient)
        let large = try await post(receiver, pool, String(repeating: "x", count: 16 << 20))
        #expect(large.status == 200 && large.body == "too large")
        // Sent behind the rest of the large body, the small request would never be answered: wait 20 s at most.
        let small = try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask { try await post(receiver, pool, "small").body }
            group.addTask { try await Task.sleep(for: .seconds(20)); return nil }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        #expect(small == "too large")
        #expect(receiver.connections == 2)
        #expect(pool.reused == 0)
    }

    @Test func aNewConnectionClosedWithoutAnAnswerFails() async throws {
        let receiver = try ScriptedHTTPReceiver { _, _ in (nil, true) }
        defer { receiver.stop() }
        let pool = HTTP1ConnectionPool()
        await #expect(throws: (any Error).self) { try await post(receiver, pool, "lost") }
        #expect(receiver.requests.count == 1)   // not sent again: a new connection has no stale excuse
    }

    @Test func anIdleConnectionIsClosedAfterTheIdleTimeout() async throws {
        let receiver = try ScriptedHTTPReceiver { _, request in (ScriptedHTTPReceiver.ok("ok \(request)"), false) }
        defer { receiver.stop() }
        let pool = HTTP1ConnectionPool(idleTimeout: .milliseconds(200))
        _ = try await post(receiver, pool, "a")
        let deadline = ContinuousClock.now + .seconds(20)
        while receiver.closedByClient.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(receiver.closedByClient == [0])
        #expect(pool.idleOrigins == 0, "an origin without idle connections is forgotten")
        #expect(try await post(receiver, pool, "b").body == "ok 0")
        #expect(receiver.connections == 2)
    }

    @Test func anAnswerCutShortFailsInsteadOfPassingForWhole() async throws {
        let answers = [
            "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nonly ten b",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\nonly",
        ]
        for answer in answers {
            let receiver = try ScriptedHTTPReceiver { _, _ in (answer, true) }
            defer { receiver.stop() }
            await #expect(throws: HTTP1ResponseReader.Failure.self) { try await post(receiver, HTTP1ConnectionPool(), "{}") }
            // The one-shot client reads the same way.
            let client = HTTP1Client(host: "127.0.0.1", port: receiver.port)
            await #expect(throws: HTTP1ResponseReader.Failure.self) { try await client.send(HTTPRequest(method: "GET", target: "/")) }
        }
    }

    @Test func aCancelledRequestEndsAtOnceAndSendsNothingIfNotStarted() async throws {
        // A receiver that reads requests and never answers.
        let receiver = try ScriptedHTTPReceiver { _, _ in (nil, false) }
        defer { receiver.stop() }
        let pool = HTTP1ConnectionPool(idleTimeout: Self.patient)
        // Cancelled while waiting for the answer: it ends, and its connection is closed, not kept.
        let waiting = Task { try await post(receiver, pool, "waits") }
        let deadline = ContinuousClock.now + .seconds(20)
        while receiver.requests.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        while receiver.closedByClient.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(receiver.closedByClient == [0])
        #expect(pool.idleOrigins == 0)
        // Cancelled before it starts: nothing is sent, by either client.
        for pooled in [true, false] {
            let late = Task {
                while !Task.isCancelled { await Task.yield() }
                let client = HTTP1Client(host: "127.0.0.1", port: receiver.port, pool: pooled ? pool : nil)
                return try await client.send(HTTPRequest(method: "POST", target: "/hook", body: Array("late".utf8))).status
            }
            late.cancel()
            await #expect(throws: CancellationError.self) { try await late.value }
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(receiver.requests.map(\.body) == ["waits"])
        #expect(receiver.connections == 1)
    }

    @Test func hostileAnswersFailAndTheirConnectionIsNotKept() async throws {
        let endless = String(repeating: "X-Filler: " + String(repeating: "a", count: 1000) + "\r\n", count: 80)
        let answers = [
            "HTTP/1.1 200 OK\r\n" + endless + "\r\n",                                  // a head over 64 KiB
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",            // a chunk size that is not hex
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "1", count: 5000),   // an endless size line
            "SMTP ready\r\n\r\n",                                                      // not HTTP
            "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",  // lengths that disagree
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\n",  // a size that overflows with its CRLF
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-0\r\n\r\n",        // a sign is not a hex digit
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXY0\r\n\r\n", // no CRLF after the data
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "x", count: 5000) + "\r\n",  // a long line in one piece
            String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 17) + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        ]
        for answer in answers {
            let receiver = try ScriptedHTTPReceiver { _, _ in (answer, false) }
            defer { receiver.stop() }
            let pool = HTTP1ConnectionPool()
            await #expect(throws: HTTP1ResponseReader.Failure.self) { try await post(receiver, pool, "{}") }
            #expect(pool.reused == 0)
        }
    }
}
