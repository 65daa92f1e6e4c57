import Foundation
import Testing
import HeraldHTTP
import HeraldTestSupport

/// Real processes: `herald sim` as APNs and `herald serve`, which is killed with SIGKILL in the middle of a
/// fan-out and started again on the same data directory.
@Suite(.serialized) struct CrashRecoveryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let binary = root.appendingPathComponent(".build/debug/herald").path

    /// `herald` with its log captured (read as it comes, so a chatty child never blocks on a full pipe).
    struct Child {
        let process: ChildProcess
        init(_ args: [String]) throws {
            process = try ChildProcess(CrashRecoveryTests.binary, args, error: .sameAsOutput)
        }
        func kill9() async { process.signal(SIGKILL); _ = await process.exit() }
        /// Blocking, for `defer`.
        func stop() { if process.isRunning { process.signal(SIGTERM); _ = process.waitForExit() } }
    }

    struct API {
        let client: HTTP1Client
        let key: String?
        func call(_ method: String, _ path: String, _ json: Any? = nil, body: [UInt8]? = nil) async throws -> (Int, Any?) {
            var headers: HTTPHeaders = [:]
            if let key { headers.add("authorization", "Bearer \(key)") }
            var bytes = body ?? []
            if let json { bytes = [UInt8](try JSONSerialization.data(withJSONObject: json)); headers.add("content-type", "application/json") }
            let r = try await client.send(HTTPRequest(method: method, target: path, headers: headers, body: bytes))
            return (r.status, try? JSONSerialization.jsonObject(with: Data(r.body)))
        }
    }

    /// What the crash tests of one kind of write start with: a fresh data directory, `herald serve` on it
    /// (no simulator, no API rate limit) answering `/healthz`, and one app. `start()` runs the same server
    /// again on the same directory after a kill; `remove()` deletes the directory.
    struct AppServer {
        let dir: URL
        let port: Int
        let args: [String]
        /// The app's keys by scope ("client", "master").
        let keys: [String: String]
        var serve: Child

        init(_ label: String) async throws {
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-\(label)-crash-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            port = FreePort.next()
            let adminKey = "hk_admin_\(label)_crash_0123456789abcd"
            args = ["serve", "--http-port", "\(port)", "--data-dir", dir.appendingPathComponent("serve").path,
                    "--simulator-enabled", "false", "--admin-key", adminKey, "--log-format", "json", "--api-rate-limit", "0"]
            serve = try Child(args)
            let admin = API(client: HTTP1Client(host: "127.0.0.1", port: port), key: adminKey)
            #expect(try await waitUntil(seconds: 60) { try await admin.call("GET", "/healthz").0 == 200 })
            let app = try #require(try await admin.call("POST", "/v1/apps", ["name": "Crash \(label)", "topic": "com.example.crash"]).1 as? [String: Any])
            keys = try #require((app["keys"] as? [String: Any])?.compactMapValues { $0 as? String })
        }

        func api(_ scope: String) -> API { API(client: HTTP1Client(host: "127.0.0.1", port: port), key: keys[scope]) }
        mutating func start() throws { serve = try Child(args) }
        func remove() { try? FileManager.default.removeItem(at: dir) }
    }

    static func waitUntil(seconds: Double = 60, _ probe: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if (try? await probe()) == true { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test func aKilledServerResumesItsFanOutAndEveryDeviceGetsTheNotificationOnce() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build first: swift build (make test does)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let (simPort, inspectPort, httpPort) = (FreePort.next(), FreePort.next(), FreePort.next())
        let sim = try Child(["sim", "start", "--port", "\(simPort)", "--production-port", "-1", "--inspection-port", "\(inspectPort)",
                             "--data-dir", dir.appendingPathComponent("sim").path])
        defer { sim.stop() }
        let simAPI = API(client: HTTP1Client(host: "127.0.0.1", port: inspectPort), key: nil)
        #expect(try await Self.waitUntil(seconds: 60) { try await simAPI.call("GET", "/health").0 == 200 })

        // 600 phones with the app installed, and a signing key for the provider.
        let bundle = "com.example.crash"
        var tokens: [String] = []
        for i in 0..<600 {
            let device = try #require(try await simAPI.call("POST", "/devices", ["name": "phone \(i)"]).1 as? [String: Any])
            let app = try #require(try await simAPI.call("POST", "/devices/\(device["id"]!)/apps", ["bundleId": bundle, "environment": "sandbox"]).1 as? [String: Any])
            tokens.append(try #require(app["token"] as? String))
        }
        let key = try #require(try await simAPI.call("POST", "/keys/generate", ["teamId": "TEAM123456"]).1 as? [String: Any])

        let adminKey = "hk_admin_crash_test_0123456789abcdef"
        let serveArgs = ["serve", "--http-port", "\(httpPort)", "--data-dir", dir.appendingPathComponent("serve").path,
                         "--simulator-enabled", "false", "--admin-key", adminKey, "--log-format", "json",
                         "--apns-sandbox-endpoint", "127.0.0.1:\(simPort)", "--apns-ca-file", dir.appendingPathComponent("sim/ca.pem").path,
                         "--delivery-poll-interval", "0.05"]
        var serve = try Child(serveArgs)
        let admin = API(client: HTTP1Client(host: "127.0.0.1", port: httpPort), key: adminKey)
        #expect(try await Self.waitUntil(seconds: 60) { try await admin.call("GET", "/healthz").0 == 200 })
        let app = try #require(try await admin.call("POST", "/v1/apps", ["name": "Crash", "topic": bundle]).1 as? [String: Any])
        let appID = try #require(app["id"] as? String)
        let master = API(client: admin.client, key: try #require((app["keys"] as? [String: Any])?["master"] as? String))
        #expect(try await master.call("PUT", "/v1/apps/\(appID)/credentials/sandbox",
                                      ["type": "token", "keyId": key["keyId"]!, "teamId": key["teamId"]!, "key": key["privateKeyPem"]!]).0 == 200)
        let lines = tokens.map { #"{"deviceToken":"\#($0)","environment":"sandbox"}"# }.joined(separator: "\n")
        #expect(try await master.call("POST", "/v1/installations/import?format=jsonl", body: Array(lines.utf8)).0 == 200)

        // A rate-limited push, so the fan-out is still going when the process dies.
        let push = try #require(try await master.call("POST", "/v1/pushes", ["target": ["all": true], "content": ["alert": "once"],
                                                                               "options": ["rateLimit": 100]]).1 as? [String: Any])
        let pushID = try #require(push["id"] as? String)
        #expect(try await Self.waitUntil(seconds: 60) {
            let accepted = (try await simAPI.call("GET", "/stats").1 as? [String: Any])?["accepted"] as? Int ?? 0
            return accepted >= 100
        })
        await serve.kill9()
        let before = (try await simAPI.call("GET", "/stats").1 as? [String: Any])?["accepted"] as? Int ?? 0
        #expect(before < 600, "killed in the middle of the fan-out")

        serve = try Child(serveArgs)
        defer { serve.stop() }
        #expect(try await Self.waitUntil(seconds: 60) {
            (try await master.call("GET", "/v1/pushes/\(pushID)").1 as? [String: Any])?["status"] as? String == "done"
        })
        let stats = try #require(try await simAPI.call("GET", "/stats").1 as? [String: Any])
        let accepted = try #require(stats["accepted"] as? Int)
        let duplicates = stats["duplicates"] as? [String: Int] ?? [:]
        let extra = duplicates.values.reduce(0) { $0 + $1 - 1 }
        #expect(accepted - extra == 600, "every device got its notification")
        // Only what went out in the last rounds before the kill can be sent twice (a page is written once,
        // with its outcomes, while the next round's batches are out: here the rate limit's first burst of
        // 100 plus what was in flight), and the simulator recognises it by apns-id.
        #expect(extra <= 150)
        let status = try #require(try await master.call("GET", "/v1/pushes/\(pushID)").1 as? [String: Any])
        #expect((status["counts"] as? [String: Any])?["sent"] as? Int == 600)
    }
}
