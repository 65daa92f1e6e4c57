import Foundation
import HeraldClient
import HeraldHTTP
import HeraldServer
import HeraldProvider
import HeraldSimulator

/// The whole push loop on one Linux machine, with the code an iOS app runs (`HeraldClient`):
/// register → push by tag → receive on a simulated device → parse and route → open → the push's
/// status counts the open. `herald serve`'s stack runs in this process on free ports, with its
/// built-in APNs simulator standing in for Apple; everything talks over real sockets.
public enum LinuxLoop {
    public struct Failure: Error, CustomStringConvertible {
        public let step: String
        public var description: String { "step failed: \(step)" }
    }

    /// Where a tap on a push should take the user (seed 001's systype/url routing).
    public enum Destination: Equatable, Sendable { case web(String), course(Int) }

    /// Runs every step, printing each through `say`; throws at the first step that does not hold.
    public static func run(say: @escaping @Sendable (String) -> Void = { print($0) }) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-linux-loop-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        var settings = ProviderServer.Settings()
        settings.port = 0
        settings.simulatorInspectionPort = nil
        settings.dataDirectory = dir.path
        settings.service.databasePath = dir.appendingPathComponent("herald.sqlite").path
        settings.service.pollInterval = 0.05
        let server = try await ProviderServer.start(settings, log: { _, _ in })
        defer { Task { await server.stop() } }
        guard let sim = server.simulator, let clientKey = server.bootstrap.clientKey, let masterKey = server.bootstrap.masterKey else {
            throw Failure(step: "herald serve started with its simulator and a default app")
        }
        say("1. herald serve on port \(server.port), APNs simulator on port \(server.simulatorPorts?.sandbox ?? 0)")

        // The phone: a simulated device with the app installed; APNs hands it a token.
        let phone = sim.createDevice(name: "Linux iPhone")
        let installed = try sim.install(bundleID: settings.defaultBundleID, environment: .sandbox, on: phone.id)
        let tokenBytes = Data(stride(from: 0, to: installed.token.count, by: 2).map { i -> UInt8 in
            let s = installed.token.index(installed.token.startIndex, offsetBy: i)
            return UInt8(installed.token[s...installed.token.index(after: s)], radix: 16)!
        })
        say("2. simulated device \(phone.id) got token \(installed.token.prefix(16))…")

        // The app: HeraldClient registers the token, then subscribes to a tag.
        let client = try HeraldClient(configuration: .init(
            serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, clientKey: clientKey, environment: .sandbox,
            storage: FileStorage(directory: dir.appendingPathComponent("app")),
            deviceInfo: { DeviceInfo(locale: "zh-Hans_CN", timeZone: "Asia/Shanghai", appVersion: "1.0", osVersion: "18.1", deviceModel: "iPhone16,1") }))
        try await client.register(deviceToken: tokenBytes)
        try await client.setTags(["news"])
        try await client.setAlias("user_42")
        say("3. HeraldClient registered installation \(client.installationId) with tag news")

        // The backend: a push to the tag, with routing data like seed 001's.
        let api = HTTP1Client(host: "127.0.0.1", port: server.port)
        let push = try await call(api, "POST", "/v1/pushes", key: masterKey, [
            "target": ["tags": ["news"]],
            "content": ["alert": ["title": "Breaking", "body": "Herald runs on Linux"], "category": "NEWS_CATEGORY",
                        "badge": ["increment": 1], "data": ["systype": 5, "url": "https://example.com/story"]],
        ])
        guard let pushID = push["id"] as? String else { throw Failure(step: "push accepted") }
        say("4. backend pushed \(pushID) to tag news")

        // The phone receives it; the app parses and routes it.
        guard let received = try await waitFor({ sim.device(phone.id)?.inbox.first }) else {
            throw Failure(step: "the device received the push")
        }
        let notification = try PushNotification(jsonData: Data(received.payload))
        var router = PushRouter<Destination>()
        router.when("systype", equals: 5) { p in p.value(at: "url")?.stringValue.map(Destination.web) }
        router.when("systype", equals: 1) { p in p.value(at: "id")?.intValue.map(Destination.course) }
        guard notification.heraldPushId == pushID, notification.alert?.title == "Breaking", notification.badge == 1,
              router.destination(for: notification) == .web("https://example.com/story") else {
            throw Failure(step: "the payload parses to the push that was sent and routes to its web page")
        }
        say("5. device received \"\(notification.alert?.title ?? "")\", badge \(notification.badge ?? 0), routes to \(router.destination(for: notification).map { "\($0)" } ?? "-")")

        // The user taps it: the SDK reports the open, once.
        await client.handleOpened(notification)
        await client.handleOpened(notification)
        guard let status = try await waitFor({ () async throws -> [String: Any]? in
            let s = try await call(api, "GET", "/v1/pushes/\(pushID)", key: masterKey)
            let counts = s["counts"] as? [String: Any]
            return counts?["opened"] as? Int == 1 && counts?["sent"] as? Int == 1 ? s : nil
        }) else {
            throw Failure(step: "the push's status counts one delivery and one open")
        }
        say("6. opened; push status \(status["status"] ?? "?"): \(status["counts"] ?? [:])")
    }

    static func call(_ api: HTTP1Client, _ method: String, _ path: String, key: String, _ json: [String: Any]? = nil) async throws -> [String: Any] {
        var headers: HTTPHeaders = ["authorization": "Bearer \(key)"]
        var body: [UInt8] = []
        if let json { body = [UInt8](try JSONSerialization.data(withJSONObject: json)); headers.add("content-type", "application/json") }
        let r = try await api.send(HTTPRequest(method: method, target: path, headers: headers, body: body))
        return (try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any]) ?? [:]
    }

    static func waitFor<T>(_ probe: () async throws -> T?) async throws -> T? {
        for _ in 0..<200 {
            if let value = try await probe() { return value }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}
