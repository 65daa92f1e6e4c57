import Foundation
import Synchronization
import APNSCore
import HeraldHTTP
import HeraldIO
import HeraldCrypto

/// A small APNs-shaped HTTP/2 server whose answers a test scripts, for the client's transport rules
/// (stream limits, GOAWAY, dead peers, retries). The simulator covers Apple's validation rules.
final class ScriptedAPNsServer: HTTP2ServerDelegate, @unchecked Sendable {
    enum Answer { case ok, reject(Int, String), silent, goAway(String), freeze }

    struct Seen { var apnsID: String?; var authorization: String?; var connection: UInt64; var inFlight: Int; var hadClientCertificate: Bool }

    /// Decides the answer for the n-th request (0-based) overall.
    let script: @Sendable (Int, HTTPRequest) -> Answer
    let initialStreamLimit: UInt32?
    let raisedStreamLimit: UInt32
    private let state = Mutex<(count: Int, seen: [Seen], inFlight: [UInt64: Int], raised: Set<UInt64>)>((0, [], [:], []))
    private(set) var server: HTTP2Server!

    init(tls: Bool, initialStreamLimit: UInt32? = nil, raisedStreamLimit: UInt32 = 1000,
         script: @escaping @Sendable (Int, HTTPRequest) -> Answer = { _, _ in .ok }) async throws {
        self.script = script
        self.initialStreamLimit = initialStreamLimit
        self.raisedStreamLimit = raisedStreamLimit
        let tlsConfig = tls ? TLSServerConfiguration(identity: TestPKI.shared.serverIdentity, requestClientCertificate: true) : nil
        server = try HTTP2Server(configuration: .init(tls: tlsConfig, maxConcurrentStreams: raisedStreamLimit), delegate: self)
        try await server.start()
    }

    var port: Int { server.port }
    var seen: [Seen] { state.withLock { $0.seen } }

    func connectionOpened(_ connection: HTTP2ServerConnection) {
        if let initial = initialStreamLimit { connection.updateMaxConcurrentStreams(initial) }
    }

    func handle(_ request: HTTPRequest, on connection: HTTP2ServerConnection, responder: HTTP2Responder) {
        let (n, inFlight) = state.withLock { s -> (Int, Int) in
            let n = s.count
            s.count += 1
            s.inFlight[connection.id, default: 0] += 1
            let f = s.inFlight[connection.id]!
            s.seen.append(Seen(apnsID: request.headers["apns-id"], authorization: request.headers["authorization"],
                               connection: connection.id, inFlight: f, hadClientCertificate: connection.peerCertificateDER != nil))
            return (n, f)
        }
        _ = inFlight
        let done = { self.state.withLock { s in s.inFlight[connection.id, default: 1] -= 1 } }
        let id = request.headers["apns-id"] ?? UUID().uuidString.lowercased()
        switch script(n, request) {
        case .ok:
            let raise = state.withLock { s in s.raised.insert(connection.id).inserted }
            if raise && initialStreamLimit != nil { connection.updateMaxConcurrentStreams(raisedStreamLimit) }
            done()
            responder.respond(HTTPResponse(status: 200, headers: ["apns-id": id]))
        case let .reject(status, reason):
            done()
            responder.respond(HTTPResponse(status: status, headers: ["apns-id": id, "content-type": "application/json"],
                                           body: Array(#"{"reason":"\#(reason)"}"#.utf8)))
        case .silent:
            break
        case let .goAway(reason):
            done()
            connection.goAway(debugData: Array(#"{"reason":"\#(reason)"}"#.utf8))
        case .freeze:
            connection.stopReading()
        }
    }

    func stop() async { await server.stop() }
}

/// A CA, a localhost server certificate and an APNs-style client certificate, made with HeraldCrypto.
struct TestPKI {
    let ca: CertificateAuthority
    let caFile: String
    let serverIdentity: CertificateIdentity
    let clientIdentity: CertificateIdentity

    static let shared: TestPKI = {
        let ca = try! CertificateAuthority.makeSelfSigned(commonName: "Herald Test CA", now: Date())
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-apns-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let caFile = dir.appendingPathComponent("ca.pem").path
        try! ca.certificate.pem.write(toFile: caFile, atomically: true, encoding: .utf8)
        let server = try! ca.issueServerCertificate(now: Date())
        let client = try! ca.issueAPNsClientCertificate(bundleID: "com.example.app", teamID: "TEAM123456", environments: .both, now: Date())
        return TestPKI(ca: ca, caFile: caFile, serverIdentity: server, clientIdentity: client)
    }()
}
