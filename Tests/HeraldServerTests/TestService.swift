import Foundation
import Synchronization
import HeraldHTTP
import HeraldStore
@testable import HeraldServer

let testAdminKey = "test-admin-key-0123456789"
let start = Date(timeIntervalSince1970: 1_800_000_000)   // 2027-01-15T08:00:00Z

/// Stand-in for the network in in-process tests: records every batch instead of talking HTTP/2 to APNs,
/// and answers with what the test says APNs would answer. Live tests with sockets use the simulator.
final class RecordingTransport: PushTransport {
    private let state = Mutex<(batches: [OutgoingBatch], answer: @Sendable (OutgoingNotification) -> DeliveryResult,
                               arrived: (@Sendable (OutgoingBatch) async -> Void)?)>(([], { DeliveryResult(id: $0.id, status: 200) }, nil))

    func answer(_ f: @escaping @Sendable (OutgoingNotification) -> DeliveryResult) { state.withLock { $0.answer = f } }

    /// Called with each batch as it arrives, before it is answered: a test can see when, or hold it (a slow APNs).
    func onArrival(_ f: @escaping @Sendable (OutgoingBatch) async -> Void) { state.withLock { $0.arrived = f } }

    var batches: [OutgoingBatch] { state.withLock { $0.batches } }
    var notifications: [OutgoingNotification] { batches.flatMap(\.notifications) }

    func deliver(_ batch: OutgoingBatch) async -> [DeliveryResult] {
        let (answer, arrived) = state.withLock { s in s.batches.append(batch); return (s.answer, s.arrived) }
        await arrived?(batch)
        return batch.notifications.map(answer)
    }
}

/// A service on a real SQLite file in a fresh temporary directory (or, with `store: .postgres`, a fresh
/// PostgreSQL database), called in-process (no sockets).
struct TestService {
    let service: HeraldService
    let transport: RecordingTransport
    let clock: ManualClock
    let directory: URL

    init(directory: URL? = nil, store: ServerStore = .sqlite, transport: RecordingTransport = RecordingTransport(), clock: ManualClock = ManualClock(start),
         configure: (inout HeraldConfiguration) -> Void = { _ in }, log: @escaping LogHandler = { _, _ in }) async throws {
        let dir = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("herald-server-\(UUID().uuidString)")
        var config = HeraldConfiguration()
        config.databasePath = dir.appendingPathComponent("herald.sqlite").path
        config.storeURL = try await store.storeURL(directory: dir)
        config.adminKey = testAdminKey
        config.runWorkers = false
        config.apiRateLimit = 0
        configure(&config)
        self.directory = dir
        self.transport = transport
        self.clock = clock
        service = try await HeraldService(configuration: config, transport: transport, clock: clock, log: log)
        try await service.start()
    }

    struct Reply {
        var status: Int
        var headers: HTTPHeaders
        var body: JSON
        var text: String

        var errorCode: String? { body["error"]?["code"]?.stringValue }
        var errorField: String? { body["error"]?["field"]?.stringValue }
    }

    @discardableResult
    func call(_ method: String, _ target: String, key: String? = nil, json: JSON? = nil, raw: [UInt8]? = nil,
              headers: HTTPHeaders = [:], remote: String = "127.0.0.1:5000") async -> Reply {
        var h = headers
        if let key { h.set("authorization", "Bearer \(key)") }
        let body = raw ?? json.map(\.bytes) ?? []
        if json != nil { h.set("content-type", "application/json") }
        let response = await service.handler(HTTPRequest(method: method, target: target, headers: h, body: body, remoteAddress: remote))
        var bytes = response.body
        if let stream = response.stream { for await chunk in stream { bytes += chunk } }
        let text = String(decoding: bytes, as: UTF8.self)
        return Reply(status: response.status, headers: response.headers, body: (try? JSON(parsing: bytes)) ?? .null, text: text)
    }

    struct App { var id: String; var master: String; var client: String }

    func createApp(_ name: String = "Demo", topic: String? = "com.example.demo", withCredentials: Bool = true) async throws -> App {
        var body: [String: JSON] = ["name": .string(name)]
        if let topic { body["topic"] = .string(topic) }
        let r = await call("POST", "/v1/apps", key: testAdminKey, json: .object(body))
        guard r.status == 201, let id = r.body["id"]?.stringValue, let master = r.body["keys"]?["master"]?.stringValue,
              let client = r.body["keys"]?["client"]?.stringValue else { throw TestFailure("create app: \(r.status) \(r.text)") }
        let app = App(id: id, master: master, client: client)
        if withCredentials {
            for environment in ["sandbox", "production"] {
                let c = await call("PUT", "/v1/apps/\(id)/credentials/\(environment)", key: master, json: p8Credential)
                guard c.status == 200 else { throw TestFailure("credential: \(c.status) \(c.text)") }
            }
        }
        return app
    }

    @discardableResult
    func register(_ app: App, _ installationID: String, token: String, tags: [String] = [], extra: [String: JSON] = [:]) async throws -> JSON {
        var body: [String: JSON] = ["installationId": .string(installationID), "deviceToken": .string(token),
                                    "environment": "production", "tags": .array(tags.map(JSON.string))]
        for (k, v) in extra { body[k] = v }
        let r = await call("POST", "/v1/installations", key: app.client, json: .object(body))
        guard r.status == 201 || r.status == 200 else { throw TestFailure("register: \(r.status) \(r.text)") }
        return r.body
    }

    func push(_ app: App, _ body: JSON, headers: HTTPHeaders = [:]) async throws -> String {
        let r = await call("POST", "/v1/pushes", key: app.master, json: body, headers: headers)
        guard r.status == 202 || r.status == 200, let id = r.body["id"]?.stringValue else { throw TestFailure("push: \(r.status) \(r.text)") }
        return id
    }

    func status(_ app: App, _ pushID: String, include: Bool = false) async -> JSON {
        await call("GET", "/v1/pushes/\(pushID)\(include ? "?include=deliveries" : "")", key: app.master).body
    }

    func deliver() async throws { try await service.engine.runUntilIdle() }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

let p8Credential: JSON = [
    "type": "token", "keyId": "ABC123DEFG", "teamId": "TEAM123456",
    "key": "-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg\n-----END PRIVATE KEY-----\n",
]

func token(_ n: Int) -> String { String(format: "%064x", n) }

func payload(_ n: OutgoingNotification) -> JSON { (try? JSON(parsing: n.payload)) ?? .null }

extension TestService {
    var services: Services { service.services }

    /// An app made through the services (no REST), with token credentials for both environments.
    func serviceApp(topic: String? = "com.example.demo") async throws -> AppRecord {
        let app = try await services.apps.create(try AppInput(name: "Demo", topic: topic)).app
        let credential = try CredentialInput.token(keyID: "ABC123DEFG", teamID: "TEAM123456", key: p8Credential["key"]!.stringValue!)
        for environment in CredentialsService.environments {
            _ = try await services.credentials.put(appID: app.id, environment: environment, credential)
        }
        return app
    }

    @discardableResult
    func serviceRegister(_ appID: String, _ installationID: String, token: String, tags: [String] = []) async throws -> InstallationRecord {
        var draft = InstallationDraft(installationID: installationID, deviceToken: token, environment: "production")
        draft.tags = tags
        return try await services.installations.register(appID: appID, draft).installation
    }
}
