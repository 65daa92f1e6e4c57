import Foundation
import Synchronization
import HeraldCrypto
import HeraldHTTP
import HeraldTestSupport
import HeraldIO
@testable import HeraldServer

/// A backend's webhook endpoint on a real socket (http, or https with a certificate from a test CA): keeps
/// every request it gets and answers with the statuses it is told, in order, then `then`.
final class WebhookReceiver: Sendable {
    struct Received: Sendable {
        var target: String
        var headers: HTTPHeaders
        var body: [UInt8]
        /// What the receiver answered.
        var status: Int
        var json: JSON { (try? JSON(parsing: body)) ?? .null }
        var events: [JSON] { json["events"]?.arrayValue ?? [] }
        var deliveryID: String { headers["herald-delivery-id"] ?? "" }
    }

    private let state: Mutex<(received: [Received], answers: [Int], then: Int)>
    private let server: Mutex<HTTPServer?> = Mutex(nil)
    let port: Int
    let tls: TLSServerConfiguration?

    /// Listens on `port` (0: any free one) unless `listening` is false: then the port is only reserved, and
    /// a POST to it is refused until `start()`.
    init(port: Int = 0, tls: TLSServerConfiguration? = nil, answers: [Int] = [], then: Int = 200, listening: Bool = true) async throws {
        state = Mutex(([], answers, then))
        self.tls = tls
        self.port = port == 0 ? FreePort.next() : port
        if listening { try await start() }
    }

    var url: String { "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)/hooks/herald?source=test" }

    func start() async throws {
        let server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: port, tls: tls)) { [self] request in
            let status = state.withLock { s -> Int in
                let status = s.answers.isEmpty ? s.then : s.answers.removeFirst()
                s.received.append(Received(target: request.target, headers: request.headers, body: request.body, status: status))
                return status
            }
            return HTTPResponse(status: status, headers: ["content-type": "text/plain"], body: Array("answer \(status)".utf8))
        }
        try await server.start()
        self.server.withLock { $0 = server }
    }

    func stop() async {
        let s = server.withLock { s -> HTTPServer? in defer { s = nil }; return s }
        await s?.stop()
    }

    func answer(_ statuses: [Int], then: Int) { state.withLock { $0.answers = statuses; $0.then = then } }

    var received: [Received] { state.withLock { $0.received } }

    /// Events from the requests answered 2xx, in the order they arrived.
    var acknowledged: [JSON] { received.filter { (200..<300).contains($0.status) }.flatMap(\.events) }

    /// Checks `Herald-Signature` as docs/webhooks.md tells receivers to: HMAC-SHA256 of "<t>.<raw body>".
    static func signatureVerifies(_ r: Received, secret: String) -> Bool {
        guard let header = r.headers["herald-signature"] else { return false }
        var t: String?, v1: String?
        for part in header.split(separator: ",") {
            if part.hasPrefix("t=") { t = String(part.dropFirst(2)) }
            if part.hasPrefix("v1=") { v1 = String(part.dropFirst(3)) }
        }
        guard let t, let v1 else { return false }
        let expected = hexString(Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(t).".utf8) + r.body))
        return ConstantTime.equals(Array(expected.utf8), Array(v1.utf8))
    }
}
