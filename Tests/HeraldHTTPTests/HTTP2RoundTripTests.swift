import Foundation
import Testing
import Synchronization
import HeraldIO
@testable import HeraldHTTP

/// Echoes the request body and path back, with the request's headers as `x-echo-*`.
final class EchoDelegate: HTTP2ServerDelegate {
    let opened = Atomic<Int>(0)
    func connectionOpened(_ connection: HTTP2ServerConnection) { opened.wrappingAdd(1, ordering: .relaxed) }
    func handle(_ request: HTTPRequest, on connection: HTTP2ServerConnection, responder: HTTP2Responder) {
        var headers: HTTPHeaders = ["x-path": request.target, "x-method": request.method]
        if let v = request.headers["apns-topic"] { headers.add("x-echo-topic", v) }
        responder.respond(HTTPResponse(status: 200, headers: headers, body: request.body))
    }
}

@Suite struct HTTP2RoundTripTests {
    func startServer(tls: Bool, delegate: HTTP2ServerDelegate = EchoDelegate()) async throws -> HTTP2Server {
        let config = HTTP2Server.Configuration(tls: tls ? TLSServerConfiguration(identity: TestCertificates.shared.serverIdentity) : nil)
        let server = try HTTP2Server(configuration: config, delegate: delegate)
        try await server.start()
        return server
    }

    @Test(arguments: [true, false])
    func requestAndResponseCrossTheWire(tls: Bool) async throws {
        let server = try await startServer(tls: tls)
        defer { Task { await server.stop() } }
        let ctx = tls ? try TLSContext(client: TLSClientConfiguration(trust: .caFile(TestCertificates.shared.caFile))) : nil
        let conn = try await HTTP2ClientConnection.connect(.init(host: "localhost", port: server.port, tls: ctx))
        let body = Array(#"{"aps":{"alert":"你好"}}"#.utf8)
        let response = try await conn.send(HTTP2ClientRequest(path: "/3/device/abcd", headers: [("apns-topic", "com.example")], body: body))
        #expect(response.status == 200)
        #expect(response.body == body)
        #expect(response.headers["x-path"] == "/3/device/abcd")
        #expect(response.headers["x-echo-topic"] == "com.example")
        conn.close()
    }

    /// Received header strings are reused while a value repeats (HPACK) and not once it keeps changing:
    /// every request must still see exactly what was sent, whatever the pattern.
    @Test func repeatedAndChangingHeaderValuesArriveIntact() async throws {
        let server = try await startServer(tls: false)
        defer { Task { await server.stop() } }
        let conn = try await HTTP2ClientConnection.connect(.init(host: "127.0.0.1", port: server.port, tls: nil))
        let topics = ["com.a", "com.a", "com.b", "com.b", "com.c", "com.d", "com.e", "com.a", "", "com.a", "com.a"]
        for (i, topic) in topics.enumerated() {
            let r = try await conn.send(HTTP2ClientRequest(path: i % 3 == 0 ? "/same" : "/n/\(i)", headers: [("apns-topic", topic)]))
            #expect(r.headers["x-echo-topic"] == topic, "request \(i)")
            #expect(r.headers["x-path"] == (i % 3 == 0 ? "/same" : "/n/\(i)"), "request \(i)")
        }
        conn.close()
    }

    /// Fields encoded once and shared by many requests go out with each request's own fields after them,
    /// for POST (whose pseudo-headers are encoded once per connection) and other methods alike.
    @Test func sharedAndOwnFieldsArriveInOrder() async throws {
        final class FieldEcho: HTTP2ServerDelegate {
            func handle(_ request: HTTPRequest, on connection: HTTP2ServerConnection, responder: HTTP2Responder) {
                let fields = request.headers.map { "\($0.name)=\($0.value)" }.joined(separator: ";")
                responder.respond(HTTPResponse(status: 200, headers: ["x-method": request.method, "x-path": request.target, "x-fields": fields]))
            }
        }
        let server = try await startServer(tls: false, delegate: FieldEcho())
        defer { Task { await server.stop() } }
        let conn = try await HTTP2ClientConnection.connect(.init(host: "127.0.0.1", port: server.port, tls: nil))
        let shared = HTTP2HeaderFields([("authorization", "bearer x.y.z"), ("apns-topic", "com.example")])
        for (i, method) in ["POST", "GET", "POST"].enumerated() {
            let own: [(name: String, value: String)] = i == 2 ? [] : [("apns-id", "id-\(i)")]
            let r = try await conn.send(HTTP2ClientRequest(method: method, path: "/3/device/\(i)", sharedFields: shared, ownFields: own))
            #expect(r.headers["x-method"] == method && r.headers["x-path"] == "/3/device/\(i)")
            #expect(r.headers["x-fields"] == "authorization=bearer x.y.z;apns-topic=com.example" + (i == 2 ? "" : ";apns-id=id-\(i)"))
        }
        conn.close()
    }

    /// Response headers the server is configured to call unique (the simulator's `apns-id`) stay out of the
    /// HPACK tables: a long run of answers leaves the client's decoding table as the first answer left it.
    @Test func uniqueResponseHeadersAreNeverIndexed() async throws {
        final class FreshID: HTTP2ServerDelegate {
            func handle(_ request: HTTPRequest, on connection: HTTP2ServerConnection, responder: HTTP2Responder) {
                responder.respond(HTTPResponse(status: 200, headers: ["apns-id": UUID().uuidString.lowercased(), "x-kind": "same"]))
            }
        }
        let server = try HTTP2Server(configuration: .init(uniqueResponseHeaders: ["apns-id"]), delegate: FreshID())
        try await server.start()
        defer { Task { await server.stop() } }
        let conn = try await HTTP2ClientConnection.connect(.init(host: "127.0.0.1", port: server.port, tls: nil))
        _ = try await conn.send(HTTP2ClientRequest(path: "/0"))
        let first = try await conn.hpackTableSizes()
        #expect(first.decoding > 0, "the repeated header is indexed")
        var ids = Set<String>()
        for i in 1...100 { ids.insert(try await conn.send(HTTP2ClientRequest(path: "/\(i)")).headers["apns-id"] ?? "") }
        #expect(ids.count == 100, "every answer's own id arrived")
        #expect(try await conn.hpackTableSizes().decoding == first.decoding)
        conn.close()
    }

    /// Whether requests that answers free up are written part-way through a read or at the end of it, every
    /// request gets its own answer.
    @Test(arguments: [true, false])
    func manyConcurrentRequestsAllComplete(writesEarly: Bool) async throws {
        let server = try await startServer(tls: true)
        defer { Task { await server.stop() } }
        let ctx = try TLSContext(client: TLSClientConfiguration(trust: .caFile(TestCertificates.shared.caFile)))
        var config = HTTP2ClientConnection.Configuration(host: "127.0.0.1", port: server.port, tls: ctx)
        config.writesEarly = writesEarly
        let conn = try await HTTP2ClientConnection.connect(config)
        let ok = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<2000 {
                group.addTask {
                    let r = try await conn.send(HTTP2ClientRequest(path: "/n/\(i)", body: Array("\(i)".utf8)))
                    return r.status == 200 && r.body == Array("\(i)".utf8) && r.headers["x-path"] == "/n/\(i)"
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(ok == 2000)
    }

    /// A peer that answers the HTTP/2 preface with something else (here an HTTP/1.1 server) breaks the
    /// protocol: the connect fails with an error, whatever the rest of the read holds, and never hangs.
    @Test func aPeerThatDoesNotSpeakHTTP2FailsTheConnect() async throws {
        let server = try HTTPServer(configuration: .init(port: 0)) { _ in HTTPResponse(status: 200) }
        try await server.start()
        defer { Task { await server.stop() } }
        await #expect(throws: HTTP2ClientError.self) {
            _ = try await HTTP2ClientConnection.connect(.init(host: "127.0.0.1", port: server.port, tls: nil, connectTimeout: .seconds(5)))
        }
    }

    @Test func untrustedServerIsRejectedWithAClearError() async throws {
        let server = try await startServer(tls: true)
        defer { Task { await server.stop() } }
        let ctx = try TLSContext(client: TLSClientConfiguration(trust: .system))
        await #expect(throws: HTTP2ClientError.self) {
            _ = try await HTTP2ClientConnection.connect(.init(host: "localhost", port: server.port, tls: ctx))
        }
        do {
            _ = try await HTTP2ClientConnection.connect(.init(host: "localhost", port: server.port, tls: ctx))
        } catch let error as HTTP2ClientError {
            #expect(error.description.contains("certificate verify failed"))
        }
    }

    @Test func connectionRefusedIsReported() async throws {
        await #expect(throws: HTTP2ClientError.self) {
            _ = try await HTTP2ClientConnection.connect(.init(host: "127.0.0.1", port: 1, tls: nil))
        }
    }
}
