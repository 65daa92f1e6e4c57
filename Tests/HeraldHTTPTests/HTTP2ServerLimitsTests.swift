import Foundation
import Testing
import Synchronization
import HeraldIO
@testable import HeraldHTTP

/// Keeps every request unanswered until `answerAll`, counting what arrives, and advertises `limit` from
/// `connectionOpened` (as the APNs simulator does for token connections).
final class HoldingDelegate: HTTP2ServerDelegate {
    let limit: UInt32
    let received = Atomic<Int>(0)
    private let held = Mutex<[HTTP2Responder]>([])

    init(limit: UInt32) { self.limit = limit }

    func connectionOpened(_ connection: HTTP2ServerConnection) { connection.updateMaxConcurrentStreams(limit) }

    func handle(_ request: HTTPRequest, on connection: HTTP2ServerConnection, responder: HTTP2Responder) {
        held.withLock { $0.append(responder) }
        received.wrappingAdd(1, ordering: .relaxed)
    }

    func answerAll() {
        for r in held.withLock({ h in defer { h = [] }; return h }) { r.respond(HTTPResponse(status: 200)) }
    }
}

/// Answers every request and sends GOAWAY right after answering the `after`-th; records what it handled.
final class GoAwayDelegate: HTTP2ServerDelegate {
    let after: Int
    let handled = Mutex<Set<String>>([])

    init(after: Int) { self.after = after }

    func handle(_ request: HTTPRequest, on connection: HTTP2ServerConnection, responder: HTTP2Responder) {
        let count = handled.withLock { $0.insert(request.target); return $0.count }
        responder.respond(HTTPResponse(status: 200))
        if count == after { connection.goAway(debugData: Array(#"{"reason":"Shutdown"}"#.utf8)) }
    }
}

/// What the client saw for each request, by path.
final class Outcomes: Sendable {
    private let results = Mutex<[String: Result<HTTP2ClientResponse, HTTP2ClientError>]>([:])
    func record(_ path: String, _ result: Result<HTTP2ClientResponse, HTTP2ClientError>) { results.withLock { $0[path] = result } }
    var all: [String: Result<HTTP2ClientResponse, HTTP2ClientError>] { results.withLock { $0 } }
    var count: Int { results.withLock { $0.count } }

    func handler(_ path: String) -> any HTTP2ResponseHandler { Recorder(path: path, outcomes: self) }

    private final class Recorder: HTTP2ResponseHandler {
        let path: String
        let outcomes: Outcomes
        init(path: String, outcomes: Outcomes) {
            self.path = path
            self.outcomes = outcomes
        }
        func requestCompleted(_ result: Result<HTTP2ClientResponse, HTTP2ClientError>) { outcomes.record(path, result) }
    }
}

@Suite struct HTTP2ServerLimitsTests {
    func server(_ delegate: HTTP2ServerDelegate) async throws -> HTTP2Server {
        let server = try HTTP2Server(configuration: .init(), delegate: delegate)
        try await server.start()
        return server
    }

    /// Waits until `value` is at least `atLeast`, then a little longer so that anything more would show.
    func settled(_ value: () -> Int, atLeast: Int) async throws -> Int {
        for _ in 0..<300 where value() < atLeast { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(300))
        return value()
    }

    @Test func theStreamLimitSetWhenAConnectionOpensIsTheOneTheClientGets() async throws {
        let delegate = HoldingDelegate(limit: 2)
        let server = try await server(delegate)
        defer { Task { await server.stop() } }
        let conn = try await HTTP2ClientConnection.connect(.init(host: "127.0.0.1", port: server.port, tls: nil))
        let outcomes = Outcomes()
        conn.send(batch: (0..<5).map { (HTTP2ClientRequest(path: "/\($0)"), outcomes.handler("/\($0)")) })
        #expect(try await settled({ delegate.received.load(ordering: .relaxed) }, atLeast: 2) == 2,
                "the server allows 2 streams, so only 2 requests may be open at once")
        delegate.answerAll()
        #expect(try await settled({ delegate.received.load(ordering: .relaxed) }, atLeast: 4) == 4)
        delegate.answerAll()
        _ = try await settled({ delegate.received.load(ordering: .relaxed) }, atLeast: 5)
        delegate.answerAll()
        #expect(try await settled({ outcomes.count }, atLeast: 5) == 5)
        conn.close()
    }

    /// Requests above a GOAWAY's last stream id must not be handled by the server, and the client must
    /// hand back exactly those as not processed: a request the server handled and the client retried
    /// would reach the device twice.
    @Test func streamsAboveAGoAwaysLastStreamAreNeitherHandledNorReportedProcessed() async throws {
        for _ in 0..<5 {
            let delegate = GoAwayDelegate(after: 10)
            let server = try await server(delegate)
            let conn = try await HTTP2ClientConnection.connect(.init(host: "127.0.0.1", port: server.port, tls: nil))
            let outcomes = Outcomes()
            // One batch, so that requests beyond the GOAWAY arrive in the same reads as the one that triggers it.
            conn.send(batch: (0..<60).map { (HTTP2ClientRequest(path: "/\($0)"), outcomes.handler("/\($0)")) })
            for _ in 0..<500 where outcomes.count < 60 { try await Task.sleep(for: .milliseconds(10)) }
            let results = outcomes.all
            #expect(results.count == 60)
            let handled = delegate.handled.withLock { $0 }
            let answered = Set(results.filter { if case .success = $0.value { true } else { false } }.keys)
            #expect(handled.count >= 10)
            #expect(answered == handled, "every request the server handled was answered, and no other")
            for (path, result) in results where !handled.contains(path) {
                guard case let .failure(error) = result else { continue }
                #expect(error.isSafeToRetry, "\(path) was not handled, so it may be sent again: \(error)")
            }
            await server.stop()
        }
    }
}
