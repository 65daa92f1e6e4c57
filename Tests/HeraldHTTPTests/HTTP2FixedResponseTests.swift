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
}
