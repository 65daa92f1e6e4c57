import Foundation
import Testing
import Synchronization
import HeraldIO
@testable import HeraldHTTP

/// Answers everything with a fixed response and counts; `handle` must never run.
final class FixedDelegate: HTTP2ServerDelegate {
    let counted = Atomic<Int>(0)
    let handled = Atomic<Int>(0)
    let serial = Atomic<Int>(0)
    func handle(_ request: HTTPRequest, on connection: HTTP2ServerConnection, responder: HTTP2Responder) {
        handled.wrappingAdd(1, ordering: .relaxed)
        responder.respond(HTTPResponse(status: 500))
    }
    func fixedResponse(for connection: HTTP2ServerConnection) -> HTTP2FixedResponse? {
        HTTP2FixedResponse(status: 200, headers: [("x-mode", "counting")], echoedHeader: "apns-id",
                           makeEchoedValue: { "generated" },
                           generatedHeaders: [("X-Serial", { [self] in String(serial.wrappingAdd(1, ordering: .relaxed).newValue) })],
                           onRequest: { [self] in counted.wrappingAdd(1, ordering: .relaxed) })
    }
}

@Suite struct HTTP2FixedResponseTests {
    @Test(arguments: [true, false])
    func everyRequestGetsTheFixedAnswerWithTheEchoedHeader(tls: Bool) async throws {
        let delegate = FixedDelegate()
        let config = HTTP2Server.Configuration(tls: tls ? TLSServerConfiguration(identity: TestCertificates.shared.serverIdentity) : nil)
        let server = try HTTP2Server(configuration: config, delegate: delegate)
        try await server.start()
        defer { Task { await server.stop() } }
        let ctx = tls ? try TLSContext(client: TLSClientConfiguration(trust: .caFile(TestCertificates.shared.caFile))) : nil
        let conn = try await HTTP2ClientConnection.connect(.init(host: "localhost", port: server.port, tls: ctx))
        let body = Array(String(repeating: "x", count: 100_000).utf8)
        let echoed = try await conn.send(HTTP2ClientRequest(path: "/3/device/ab", headers: [("apns-id", "given-id")], body: body))
        #expect(echoed.status == 200)
        #expect(echoed.headers["apns-id"] == "given-id")
        #expect(echoed.headers["x-mode"] == "counting")
        #expect(echoed.body.isEmpty)
        #expect(echoed.headers["x-serial"] == "1")
        let generated = try await conn.send(HTTP2ClientRequest(method: "GET", path: "/anything"))
        #expect(generated.status == 200 && generated.headers["apns-id"] == "generated")
        #expect(generated.headers["x-serial"] == "2", "a generated header gets a fresh value in every response")
        #expect(delegate.counted.load(ordering: .relaxed) == 2)
        #expect(delegate.handled.load(ordering: .relaxed) == 0)
        conn.close()
    }

    /// Values unique to one message (a request's own fields such as APNs' `apns-id`, the fixed answer's echoed
    /// and generated headers) are never indexed: in a long run of requests they would push the shared fields
    /// out of both ends' HPACK tables, which would then have to be sent and indexed again.
    @Test func valuesOfOneMessageStayOutOfTheHPACKTables() async throws {
        let server = try HTTP2Server(configuration: HTTP2Server.Configuration(tls: nil), delegate: FixedDelegate())
        try await server.start()
        defer { Task { await server.stop() } }
        let conn = try await HTTP2ClientConnection.connect(.init(host: "127.0.0.1", port: server.port, tls: nil))
        let shared = HTTP2HeaderFields([("authorization", "bearer " + String(repeating: "t", count: 200)), ("apns-topic", "com.example")])
        func send(_ i: Int) async throws {
            let id = UUID().uuidString.lowercased()
            let r = try await conn.send(HTTP2ClientRequest(path: "/3/device/\(i)", sharedFields: shared, ownFields: [("apns-id", id)]))
            #expect(r.status == 200 && r.headers["apns-id"] == id, "request \(i)")
        }
        try await send(0)
        let first = try await conn.hpackTableSizes()
        #expect(first.encoding > 0, "the shared fields are indexed")
        for i in 1...100 { try await send(i) }
        let after = try await conn.hpackTableSizes()
        #expect(after.encoding == first.encoding, "100 unique apns-ids added nothing to the request table")
        #expect(after.decoding == first.decoding, "nor did the echoed ids and serials to the response table")
        conn.close()
    }
}
