import APNSClient
import APNSCore
import Foundation
import HeraldCrypto
import HeraldHTTP
import HeraldIO
import Testing
@testable import HeraldSimulator
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The simulator on real sockets (port 0, TLS with its own CA), driven by Herald's APNs client.
@Suite("Simulator on the network")
struct LiveTests {
    struct Running {
        let simulator: Simulator
        let ports: SimulatorPorts
        let directory: URL
        let device: Device
        let token: String
        var caFile: String { directory.appendingPathComponent("ca.pem").path }

        func client(_ credentials: APNSCredentials, port: Int? = nil, retry: RetryPolicy = RetryPolicy(maxAttempts: 1)) throws -> APNSClient {
            try APNSClient(configuration: .init(environment: .custom(host: "127.0.0.1", port: port ?? ports.sandbox),
                                                credentials: credentials, caFile: caFile, connections: 1,
                                                requestTimeout: .seconds(5), retry: retry))
        }

        func stop() async {
            await simulator.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func start(_ configure: (inout SimulatorConfiguration) -> Void = { _ in }) async throws -> Running {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-sim-live-\(UUID().uuidString)")
        var configuration = SimulatorConfiguration()
        configuration.dataDirectory = directory
        configuration.productionPort = 0
        configure(&configuration)
        let simulator = try Simulator(configuration: configuration)
        let ports = try await simulator.start()
        let device = simulator.createDevice()
        let token = try simulator.install(bundleID: "com.example.app", environment: .sandbox, on: device.id).token
        return Running(simulator: simulator, ports: ports, directory: directory, device: device, token: token)
    }

    func notification(_ token: String, topic: String = "com.example.app", body: String = "hello") throws -> APNSNotification {
        try APNSNotification(deviceTokenHex: token, topic: topic, payload: .alert(body: body))
    }

    @Test func tokenAuthDeliversAndRejectsLikeAPNs() async throws {
        let live = try await Self.start()
        let key = try TestKey()
        try live.simulator.registerSigningKey(key.signingKey())
        let client = try live.client(.token(APNSSigningKey(key: key.privateKey, keyID: key.keyID, teamID: key.teamID)))
        defer { client.shutdown() }

        let success = try await client.send(notification(live.token, body: "over the wire"))
        #expect(success.apnsUniqueID != nil)
        let inbox = live.simulator.device(live.device.id)!.inbox
        #expect(inbox.count == 1)
        #expect(inbox.first?.apnsID == success.apnsID.uuidString.lowercased())

        let unknown = String(repeating: "ab", count: 32)
        do {
            _ = try await client.send(notification(unknown))
            Issue.record("an unknown token was accepted")
        } catch {
            #expect((error as? APNSClientError)?.reason == .badDeviceToken)
        }
        #expect(live.simulator.statistics.rejected["BadDeviceToken"] == 1)
        await live.stop()
    }

    @Test func certificateAuthUsesTheIssuedCertificateAndRefusesTheWrongEnvironment() async throws {
        let live = try await Self.start()
        let sandboxCert = try live.simulator.issueClientCertificate(bundleID: "com.example.app", environments: [.sandbox])
        let client = try live.client(.certificate(sandboxCert))
        defer { client.shutdown() }
        _ = try await client.send(notification(live.token, topic: "com.example.app"))
        #expect(live.simulator.device(live.device.id)!.inbox.count == 1)

        let productionCert = try live.simulator.issueClientCertificate(bundleID: "com.example.app", environments: [.production])
        let wrong = try live.client(.certificate(productionCert))
        defer { wrong.shutdown() }
        do {
            _ = try await wrong.send(notification(live.token))
            Issue.record("a production certificate was accepted on sandbox")
        } catch {
            #expect((error as? APNSClientError)?.reason == .badCertificateEnvironment)
        }
        await live.stop()
    }

    @Test func inspectionAPIIsServedOverHTTP() async throws {
        let live = try await Self.start()
        let url = URL(string: "http://127.0.0.1:\(live.ports.inspection)/devices/\(live.device.id)")!
        let (data, response) = try await URLSession.shared.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(object?["id"] as? String == live.device.id)
        await live.stop()
    }

    @Test func clientReconnectsAfterGoAwayFromTheFaultInjector() async throws {
        let live = try await Self.start { c in
            c.faults.goAwayAfterStreams = 2
        }
        let cert = try live.simulator.issueClientCertificate(bundleID: "com.example.app", environments: [.sandbox])
        let client = try live.client(.certificate(cert), retry: RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(10)))
        defer { client.shutdown() }
        for i in 0..<5 { _ = try await client.send(notification(live.token, body: "n\(i)")) }
        #expect(live.simulator.device(live.device.id)!.inbox.count == 5)
        #expect((live.simulator.statistics.faults["goAway"] ?? 0) >= 2)
        await live.stop()
    }

    @Test func deviceStreamOverHTTPTracksPresence() async throws {
        let live = try await Self.start()
        try live.simulator.setOnline(false, deviceID: live.device.id)
        let frames = TestBox<String>("")
        let client = HTTP1Client(host: "127.0.0.1", port: live.ports.inspection)
        let watcher = Task {
            _ = try? await client.stream(HTTPRequest(method: "GET", target: "/devices/\(live.device.id)/stream")) { chunk in
                frames.mutate { $0 += String(decoding: chunk, as: UTF8.self) }
            }
        }
        func waitFor(_ condition: () -> Bool) async throws {
            for _ in 0..<300 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        }
        try await waitFor { live.simulator.device(live.device.id)?.online == true }
        #expect(live.simulator.device(live.device.id)?.online == true)
        let connection = ConnectionAuthState(environment: .sandbox, credential: .certificate(
            CertificateScope(bundleID: "com.example.app", topics: [], environments: [.sandbox])))
        _ = live.simulator.provider.process(request: push(to: live.token, topic: "com.example.app", body: #"{"aps":{"alert":"streamed"}}"#),
                                            connection: connection, now: Date())
        try await waitFor { frames.value.contains("streamed") }
        #expect(frames.value.contains("event: notification"))
        watcher.cancel()
        try await waitFor { live.simulator.device(live.device.id)?.online == false }
        #expect(live.simulator.device(live.device.id)?.online == false)
        await live.stop()
    }

    @Test func slowTLSHandshakeIsConfigurableAtRunTime() async throws {
        let live = try await Self.start()
        var faults = FaultConfiguration()
        faults.tlsHandshakeDelayMilliseconds = 300
        try live.simulator.setFaults(faults)
        let cert = try live.simulator.issueClientCertificate(bundleID: "com.example.app", environments: [.sandbox])
        let client = try live.client(.certificate(cert))
        defer { client.shutdown() }
        let started = ContinuousClock.now
        _ = try await client.send(notification(live.token))
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        await live.stop()
    }

    @Test func openedReportsAreForwardedToTheCallbackURL() async throws {
        let received = TestBox<[String]>([])
        let receiver = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in
            received.mutate { $0.append("\(request.method) \(request.target) \(String(decoding: request.body, as: UTF8.self))") }
            return HTTPResponse(status: 204)
        }
        try await receiver.start()
        let f = try Fixture { $0.openedCallbackURL = URL(string: "http://127.0.0.1:\(receiver.port)/opens")! }
        let id = try #require(f.send(push(to: f.token, body: #"{"aps":{"alert":"x"},"pushId":"p-7"}"#)).headers["apns-id"])
        try f.simulator.reportOpened(deviceID: f.device.id, apnsID: id)
        for _ in 0..<300 where received.value.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        await receiver.stop()
        let request = try #require(received.value.first)
        #expect(request.hasPrefix("POST /opens "))
        #expect(request.contains(id) && request.contains("p-7") && request.contains(f.device.id))
    }

    @Test func legacyGatewayAndFeedbackSpeakBinaryOverTLS() async throws {
        let live = try await Self.start { c in
            c.legacyGatewayPort = 0
            c.legacyFeedbackPort = 0
        }
        let cert = try live.simulator.issueClientCertificate(bundleID: "com.example.app", environments: [.sandbox])
        let tls = try TLSContext(client: TLSClientConfiguration(trust: .caFile(live.caFile), identity: cert, alpn: []))
        let token = LegacyFeedbackConnection.bytes(fromHex: live.token)!
        let payload = Array(#"{"aps":{"alert":"binary"}}"#.utf8)
        var bad = token
        bad[0] ^= 0xFF
        let frames = try LegacyNotification.enhanced(identifier: 1, expiry: 0, deviceToken: token, payload: payload).encoded()
            + LegacyNotification.enhanced(identifier: 2, expiry: 0, deviceToken: bad, payload: payload).encoded()
        let reply = await OneShotClient.exchange(port: live.ports.legacyGateway, tls: tls, send: frames)
        #expect(try LegacyErrorResponse(bytes: reply) == LegacyErrorResponse(status: .invalidToken, identifier: 2))
        #expect(live.simulator.device(live.device.id)!.inbox.count == 1)

        try live.simulator.uninstall(bundleID: "com.example.app", from: live.device.id)
        let feedback = await OneShotClient.exchange(port: live.ports.legacyFeedback, tls: tls, send: [])
        var decoder = LegacyFeedbackDecoder()
        decoder.append(feedback)
        #expect(try decoder.next()?.deviceToken == token)
        #expect(await OneShotClient.exchange(port: live.ports.legacyFeedback, tls: tls, send: []).isEmpty)
        await live.stop()
    }
}

/// Connects, writes `send`, and returns everything read until the server closes.
final class OneShotClient: ConnectionDelegate, @unchecked Sendable {
    private let send: [UInt8]
    private var received: [UInt8] = []
    private let done: CheckedContinuation<[UInt8], Never>

    private init(send: [UInt8], done: CheckedContinuation<[UInt8], Never>) {
        self.send = send
        self.done = done
    }

    static func exchange(port: Int, tls: TLSContext, send: [UInt8]) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            let client = OneShotClient(send: send, done: continuation)
            StreamConnection.connect(host: "127.0.0.1", port: port, tls: tls, timeout: .seconds(5),
                                     loop: EventLoopGroup.shared.next(), delegate: client)
        }
    }

    func streamDidBecomeReady(_ stream: StreamConnection) { if !send.isEmpty { stream.write(send) } }
    func stream(_ stream: StreamConnection, didRead bytes: UnsafeRawBufferPointer) { received += bytes }
    func streamDidClose(_ stream: StreamConnection, error: IOError?) { done.resume(returning: received) }
}
