import Foundation
import HeraldCrypto
import HeraldHTTP
import Synchronization
@testable import HeraldSimulator

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_780_000_000)) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
    var function: @Sendable () -> Date { { self.now } }
}

/// A simulator with one online device that has `com.example.app` installed for sandbox.
struct Fixture {
    let clock = TestClock()
    let simulator: Simulator
    let device: Device
    let token: String
    static let bundleID = "com.example.app"

    init(_ configure: (inout SimulatorConfiguration) -> Void = { _ in }) throws {
        var configuration = SimulatorConfiguration()
        configure(&configuration)
        simulator = try Simulator(configuration: configuration, clock: clock.function)
        device = simulator.createDevice(name: "Test iPhone")
        token = try simulator.install(bundleID: Self.bundleID, environment: .sandbox, on: device.id).token
    }

    var inbox: [SimulatedNotification] { simulator.device(device.id)!.inbox }

    /// A certificate connection for the fixture's app, sandbox.
    func certificateConnection(_ environment: PushEnvironment = .sandbox,
                               topics: [String]? = nil, environments: Set<PushEnvironment> = [.sandbox]) -> ConnectionAuthState {
        let identity = CertificateScope(bundleID: Self.bundleID,
                                           topics: topics ?? [Self.bundleID, Self.bundleID + ".voip", Self.bundleID + ".complication"],
                                           environments: environments)
        return ConnectionAuthState(environment: environment, credential: .certificate(identity))
    }

    func send(_ request: HTTPRequest, on connection: ConnectionAuthState? = nil) -> HTTPResponse {
        simulator.provider.process(request: request, connection: connection ?? certificateConnection(), now: clock.now)
    }
}

/// A provider request to `token` with sensible defaults; `headers` are added after the defaults,
/// and a default whose name appears in `headers` is left out.
func push(to token: String, topic: String? = Fixture.bundleID, headers: [(String, String)] = [],
          body: String = #"{"aps":{"alert":"hi"}}"#, method: String = "POST") -> HTTPRequest {
    var h = HTTPHeaders()
    if let topic, !headers.contains(where: { $0.0 == "apns-topic" }) { h.add("apns-topic", topic) }
    for (name, value) in headers { h.add(name, value) }
    return HTTPRequest(method: method, target: "/3/device/\(token)", headers: h, body: Array(body.utf8))
}

extension HTTPResponse {
    var reason: String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return object["reason"] as? String
    }

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
}

/// A provider signing key with its private half, and tokens signed by it.
struct TestKey {
    let privateKey: PrivateKey
    let keyID: String
    let teamID: String

    init(keyID: String = "KEY1234567", teamID: String = "TEAM123456") throws {
        privateKey = try PrivateKey.generateP256()
        self.keyID = keyID
        self.teamID = teamID
    }

    func signingKey(bundleIDs: [String]? = nil, environment: PushEnvironment? = nil) -> SigningKey {
        SigningKey(keyID: keyID, teamID: teamID, publicKey: privateKey.publicKey, bundleIDs: bundleIDs, environment: environment)
    }

    enum Encoding { case base64url, paddedBase64 }

    /// A JWT; `kid`/`iss`/`alg` can be overridden to make bad ones.
    func token(issuedAt: Date, kid: String? = nil, iss: String? = nil, alg: String = "ES256",
               der: Bool = false, encoding: Encoding = .base64url) throws -> String {
        func b64(_ bytes: [UInt8]) -> String {
            encoding == .base64url ? Base64URL.encode(bytes) : Base64URL.encodeStandard(bytes)
        }
        let header = b64(Array(#"{"alg":"\#(alg)","kid":"\#(kid ?? keyID)"}"#.utf8))
        let claims = b64(Array(#"{"iss":"\#(iss ?? teamID)","iat":\#(Int(issuedAt.timeIntervalSince1970))}"#.utf8))
        var signature = try privateKey.signES256(Array("\(header).\(claims)".utf8))
        if der { signature = ECDSASignature.der(fromRaw: signature)! }
        return "\(header).\(claims).\(b64(signature))"
    }

    /// A token as APNSwift builds it (and sent it to Apple for years): pretty-printed JSON, `typ`, `iat`
    /// as a string (nil leaves it out) and `kid` repeated in the claims.
    func apnswiftToken(iat: String?) throws -> String {
        let header = """
        {
            "alg": "ES256",
            "typ": "JWT",
            "kid": "\(keyID)"
        }
        """
        let iatLine = iat.map { "\n    \"iat\": \"\($0)\"," } ?? ""
        let claims = """
        {
            "iss": "\(teamID)",\(iatLine)
            "kid": "\(keyID)"
        }
        """
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(try privateKey.signES256(Array(input.utf8)))
    }
}

/// Collects a device stream's frames in the background.
final class StreamCollector: Sendable {
    private final class Frames: Sendable { let list = Mutex<[String]>([]) }
    private let frames = Frames()
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(_ stream: AsyncStream<[UInt8]>) {
        let frames = self.frames
        let t = Task {
            for await chunk in stream { frames.list.withLock { $0.append(String(decoding: chunk, as: UTF8.self)) } }
        }
        task.withLock { $0 = t }
    }

    var text: String { frames.list.withLock { $0.joined() } }

    /// Waits (up to 2 s) until `predicate` holds for the collected text.
    func wait(until predicate: (String) -> Bool) async -> Bool {
        for _ in 0..<200 {
            if predicate(text) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return predicate(text)
    }

    func cancel() { task.withLock { $0?.cancel() } }
}
