import Foundation
import Testing
import HeraldHTTP
import HeraldStore
@testable import HeraldPostgres
@testable import HeraldSimulator
import HeraldTestSupport

/// Several `herald serve` processes (the built binary) on one PostgreSQL database, delivering to one APNs
/// simulator (in this process, over the network), with nodes killed by SIGKILL. Short leases (3 s, renewed
/// every second) keep the runs short; the defaults only take longer to notice a death.
@Suite(.serialized, .enabled(if: postgresTestURL != nil, "needs HERALD_TEST_POSTGRES_URL (make test starts a server)"))
struct MultiNodeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let binary = root.appendingPathComponent(".build/debug/herald").path
    static let bundle = "com.example.cluster"
    static let adminKey = "hk_admin_cluster_test_0123456789abcdef"
    static let (fanOutPage, batchSize, concurrency) = (1000, 250, 4)

    /// One `herald serve` process; its output goes to a file, shown when a test fails.
    final class Node: @unchecked Sendable {
        let name: String
        let port: Int
        let log: URL
        private let process: ChildProcess

        init(_ name: String, cluster: Cluster) throws {
            self.name = name
            port = FreePort.next()
            log = cluster.directory.appendingPathComponent("\(name).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process = try ChildProcess(MultiNodeTests.binary, [
                "serve", "--http-port", "\(port)", "--data-dir", cluster.directory.appendingPathComponent(name).path,
                "--store-url", cluster.storeURL, "--secrets-key", cluster.secretKey, "--admin-key", MultiNodeTests.adminKey,
                "--simulator-enabled", "false", "--log-format", "json",
                "--apns-sandbox-endpoint", "127.0.0.1:\(cluster.simPort)", "--apns-ca-file", cluster.caFile.path,
                "--cluster-node", name, "--cluster-lease-seconds", "3", "--cluster-renew-seconds", "1",
                "--delivery-poll-interval", "0.1", "--delivery-fan-out-batch-size", "\(MultiNodeTests.fanOutPage)",
                "--delivery-batch-size", "\(MultiNodeTests.batchSize)", "--delivery-concurrency", "\(MultiNodeTests.concurrency)",
            ], output: .file(log.path), error: .sameAsOutput)
        }

        var isRunning: Bool { process.isRunning }
        // Waits off the cooperative pool: a node's graceful stop can take seconds, and the pool has one thread
        // per core.
        func kill9() async { process.signal(SIGKILL); _ = await process.exit() }
        func stop() async { if process.isRunning { process.signal(SIGTERM); _ = await process.exit() } }
        var tail: String {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return "--- \(name)\n" + text.split(separator: "\n").suffix(15).joined(separator: "\n")
        }
    }

    /// The simulator, the database and the nodes of one test.
    final class Cluster: @unchecked Sendable {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-cluster-\(UUID().uuidString)")
        let simulator: Simulator
        let simPort: Int
        let caFile: URL
        let storeURL: String
        let database: PostgresStore
        let secretKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var nodes: [Node] = []

        init(devices: Int, storeURL: String? = nil) async throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var config = SimulatorConfiguration()
            config.sandboxPort = 0
            config.productionPort = nil
            simulator = try Simulator(configuration: config)
            simPort = try await simulator.start().sandbox
            caFile = directory.appendingPathComponent("ca.pem")
            try simulator.certificateAuthority().certificate.pem.write(to: caFile, atomically: true, encoding: .utf8)
            if let storeURL { self.storeURL = storeURL } else { self.storeURL = try await freshPostgresDatabase() }
            database = try await PostgresStore(url: self.storeURL, poolSize: 2, node: "test-observer")
            tokens = try (0..<devices).map { _ in
                try simulator.install(bundleID: MultiNodeTests.bundle, environment: .sandbox, on: simulator.createDevice().id).token
            }
        }
        private(set) var tokens: [String] = []

        /// Starts the nodes one after the other (the first creates the schema and adopts the admin key).
        func start(_ names: [String]) async throws {
            for name in names {
                let node = try Node(name, cluster: self)
                nodes.append(node)
                let api = API(port: node.port, key: MultiNodeTests.adminKey)
                try #require(await waitUntil(seconds: 120) { try await api.call("GET", "/readyz").0 == 200 }, "\(node.tail)")
            }
        }

        /// The node whose id starts with the given name's prefix, by what the database says it holds.
        func node(holding predicate: (NodeRecord) -> Bool) async throws -> Node? {
            let records = try await database.nodes()
            guard let id = records.first(where: predicate)?.id else { return nil }
            return nodes.first { id.hasPrefix($0.name + "-") && $0.isRunning }
        }

        var logs: String { nodes.map(\.tail).joined(separator: "\n") }

        func shutdown() async {
            for node in nodes { await node.stop() }
            await database.close()
            await simulator.stop()
            if ProcessInfo.processInfo.environment["HERALD_KEEP_CLUSTER"] == nil { try? FileManager.default.removeItem(at: directory) }
        }

        /// An app with the simulator's signing key and every device imported (tagged `everyone`), through `node`.
        func makeApp(via node: Node) async throws -> (id: String, master: String) {
            let admin = API(port: node.port, key: MultiNodeTests.adminKey)
            let app = try #require(try await admin.call("POST", "/v1/apps", ["name": "Cluster", "topic": MultiNodeTests.bundle]).1 as? [String: Any])
            let appID = try #require(app["id"] as? String)
            let master = try #require((app["keys"] as? [String: Any])?["master"] as? String)
            let key = try simulator.generateSigningKey(bundleIDs: [MultiNodeTests.bundle])
            let api = API(port: node.port, key: master)
            #expect(try await api.call("PUT", "/v1/apps/\(appID)/credentials/sandbox",
                                       ["type": "token", "keyId": key.keyID, "teamId": key.teamID, "key": key.privateKeyPEM]).0 == 200)
            // Straight into the database, in the store's import batches: the HTTP import (tested elsewhere)
            // of 100,000 lines by a debug build would take most of the test's time.
            for start in stride(from: 0, to: tokens.count, by: 10_000) {
                let drafts = tokens[start..<min(start + 10_000, tokens.count)].map { token in
                    var d = InstallationDraft(installationID: nil, deviceToken: token, environment: "sandbox")
                    d.tags = ["everyone"]
                    return d
                }
                _ = try await database.importInstallations(appID: appID, drafts: drafts, newIDs: drafts.map { _ in UUID().uuidString.lowercased() }, now: Date())
            }
            return (appID, master)
        }
    }

    struct API {
        let client: HTTP1Client
        let key: String?
        init(port: Int, key: String?) {
            client = HTTP1Client(host: "127.0.0.1", port: port)
            self.key = key
        }
        func call(_ method: String, _ path: String, _ json: Any? = nil, body: [UInt8]? = nil) async throws -> (Int, Any?) {
            var headers: HTTPHeaders = [:]
            if let key { headers.add("authorization", "Bearer \(key)") }
            var bytes = body ?? []
            if let json { bytes = [UInt8](try JSONSerialization.data(withJSONObject: json)); headers.add("content-type", "application/json") }
            let r = try await client.send(HTTPRequest(method: method, target: path, headers: headers, body: bytes))
            return (r.status, try? JSONSerialization.jsonObject(with: Data(r.body)))
        }
        func status(_ pushID: String) async throws -> [String: Any] {
            try #require(try await call("GET", "/v1/pushes/\(pushID)").1 as? [String: Any])
        }
    }

    static func waitUntil(seconds: Double, _ probe: () async throws -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if (try? await probe()) == true { return true }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return false
    }

    /// Notifications the simulator accepted twice or more (same apns-id), beyond the first.
    static func extra(_ simulator: Simulator) -> Int { simulator.statistics.duplicates.values.reduce(0) { $0 + $1 - 1 } }

    @Test func aNodeKilledInTheMiddleOfAFanOutLosesNothingAndItsWorkIsTakenOver() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build first: swift build (make test does)")
        let audience = Int(ProcessInfo.processInfo.environment["HERALD_CLUSTER_DEVICES"] ?? "") ?? 100_000
        let began = Date()
        let cluster = try await Cluster(devices: audience)
        do {
            try await cluster.start(["n1", "n2", "n3"])
            let started = Date()
            let app = try await cluster.makeApp(via: cluster.nodes[0])
            let imported = Date()
            let api = API(port: cluster.nodes[1].port, key: app.master)
            let push = try #require(try await api.call("POST", "/v1/pushes", ["target": ["tags": ["everyone"]], "content": ["alert": "to everyone, once"]]).1 as? [String: Any])
            let pushID = try #require(push["id"] as? String)

            // Kill the node fanning the push out once a fifth of the audience has it.
            #expect(await Self.waitUntil(seconds: 300) { cluster.simulator.statistics.accepted >= audience / 5 }, "\(cluster.logs)")
            let owner = try #require(try await cluster.node(holding: { $0.fanOuts > 0 }), "a node holds the fan-out\n\(cluster.logs)")
            await owner.kill9()
            let acceptedAtKill = cluster.simulator.statistics.accepted
            #expect(acceptedAtKill < audience, "killed in the middle of the fan-out")

            let survivor = API(port: cluster.nodes.first { $0.isRunning }!.port, key: app.master)
            #expect(await Self.waitUntil(seconds: 600) { try await survivor.status(pushID)["status"] as? String == "done" }, "\(cluster.logs)")
            let status = try await survivor.status(pushID)
            let counts = try #require(status["counts"] as? [String: Any])
            #expect(counts["sent"] as? Int == audience, "\(status)")
            let stats = cluster.simulator.statistics
            let extra = Self.extra(cluster.simulator)
            #expect(stats.accepted - extra == audience, "every device got the notification")
            // Sent twice at most: what the dead node had sent but not yet written (a page written while the
            // next round's batches are out: two rounds of batches) and its express lane's first batch.
            #expect(extra <= 2 * Self.concurrency * Self.batchSize + Self.batchSize, "\(extra) duplicates")
            print("cluster: \(audience) devices, killed \(owner.name) at \(acceptedAtKill) accepted, \(extra) sent twice; "
                  + String(format: "devices and nodes %.1f s, app and import %.1f s, push %.1f s",
                           started.timeIntervalSince(began), imported.timeIntervalSince(started), Date().timeIntervalSince(imported)))
        } catch {
            Issue.record("\(error)\n\(cluster.logs)")
        }
        await cluster.shutdown()
    }

    @Test func theSchedulerLeaseHoldersDeathDelaysAScheduledPushButItIsSentOnce() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build first: swift build (make test does)")
        let cluster = try await Cluster(devices: 50)
        do {
            try await cluster.start(["s1", "s2", "s3"])
            let app = try await cluster.makeApp(via: cluster.nodes[0])
            var leader: Node?
            #expect(await Self.waitUntil(seconds: 60) {
                leader = try await cluster.node(holding: { $0.leases.contains("scheduler") })
                return leader != nil
            })
            let dead = try #require(leader)
            // Due in 4 s or so (a whole second: the API reads times to the second); its scheduler dies just before.
            let sendAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 4).rounded(.up))
            let api = API(port: cluster.nodes.first { $0 !== dead }!.port, key: app.master)
            let push = try #require(try await api.call("POST", "/v1/pushes", ["target": ["tags": ["everyone"]], "content": ["alert": "later, once"],
                                                                               "options": ["sendAt": ISO8601DateFormatter().string(from: sendAt)]]).1 as? [String: Any])
            let pushID = try #require(push["id"] as? String)
            #expect(push["status"] as? String == "scheduled")
            try await Task.sleep(for: .seconds(max(0, sendAt.timeIntervalSinceNow - 0.5)))
            #expect(try await api.status(pushID)["status"] as? String == "scheduled")
            await dead.kill9()

            #expect(await Self.waitUntil(seconds: 120) { try await api.status(pushID)["status"] as? String == "done" }, "\(cluster.logs)")
            let counts = try #require(try await api.status(pushID)["counts"] as? [String: Any])
            #expect(counts["sent"] as? Int == 50)
            #expect(cluster.simulator.statistics.accepted == 50, "sent once to each device")
            #expect(Self.extra(cluster.simulator) == 0)
            // Another node holds the lease now (it promoted the push once the dead node's lease expired).
            #expect(await Self.waitUntil(seconds: 60) {
                try await cluster.database.nodes().contains { $0.leases.contains("scheduler") && !$0.id.hasPrefix(dead.name + "-") }
            })
        } catch {
            Issue.record("\(error)\n\(cluster.logs)")
        }
        await cluster.shutdown()
    }
}

/// A database outage: the PostgreSQL server of the nodes is stopped under load and started again. It is a
/// server of this test's own (scripts/postgres-test.sh), so the other tests' server stays up.
extension MultiNodeTests {
    /// A throwaway PostgreSQL server: `down()` stops it (data kept), `up()` starts it again.
    struct OwnServer {
        static let script = MultiNodeTests.root.appendingPathComponent("scripts/postgres-test.sh").path
        let url: String
        let directory: String

        static func start() throws -> OwnServer {
            let exports = try run(["start"])
            func value(_ name: String) -> String? {
                exports.split(separator: "\n").first { $0.hasPrefix("export \(name)=") }
                    .map { String($0.dropFirst("export \(name)=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
            }
            guard let url = value("HERALD_TEST_POSTGRES_URL"), let directory = value("HERALD_TEST_POSTGRES_DIR") else {
                throw TestFailure("postgres-test.sh start printed no URL: \(exports)")
            }
            return OwnServer(url: url, directory: directory)
        }

        @discardableResult
        static func run(_ arguments: [String]) throws -> String {
            // `ChildProcess`, with standard output to a file rather than a pipe: the server the script starts
            // outlives it and would hold a pipe open. The child inherits no other descriptor, so neither does
            // that server: a socket of a test running meanwhile, kept open in it, would never close or reset
            // (`StreamConnectionResetTests` waited in vain for the reset of a socket it had closed).
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("herald-pg-out-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            let status = try ChildProcess(script, arguments, output: .file(file.path), error: .discard).waitForExit()
            guard status == 0 else { throw TestFailure("postgres-test.sh \(arguments) failed (\(status))") }
            return try String(contentsOf: file, encoding: .utf8)
        }

        func down() throws { try Self.run(["down", directory]) }
        func up() throws { try Self.run(["up", directory]) }
        /// Killed as a crash would kill it: what PostgreSQL had not yet written to its WAL files is lost.
        func crash() throws { try Self.run(["crash", directory]) }
        func stop() { _ = try? Self.run(["stop", directory]) }
    }

    /// What the load saw: pushes accepted (by idempotency key) and the first 503's body.
    final class Load: @unchecked Sendable {
        private let lock = NSLock()
        private var _accepted: [String] = []
        private var _unavailable: [String: Any]?
        var accepted: [String] { lock.withLock { _accepted } }
        var unavailable: [String: Any]? { lock.withLock { _unavailable } }
        func accept(_ id: String) { lock.withLock { _accepted.append(id) } }
        func saw503(_ body: [String: Any]) { lock.withLock { if _unavailable == nil { _unavailable = body } } }
    }

    @Test func aDatabaseRestartUnderLoadAnswers503MeanwhileAndLosesOrRepeatsNothing() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build first: swift build (make test does)")
        let server = try OwnServer.start()
        defer { server.stop() }
        let devices = 2000
        let cluster = try await Cluster(devices: devices, storeURL: server.url)
        do {
            try await cluster.start(["o1", "o2"])
            let app = try await cluster.makeApp(via: cluster.nodes[0])
            let apis = cluster.nodes.map { API(port: $0.port, key: app.master) }
            let load = Load()
            // One push after another, to both nodes; a 503 is retried with the same idempotency key, as a
            // client should, until it is accepted.
            let sending = Task {
                var n = 0
                while !Task.isCancelled {
                    n += 1
                    while !Task.isCancelled {
                        let (status, body) = (try? await apis[n % 2].call("POST", "/v1/pushes", ["target": ["tags": ["everyone"]], "content": ["alert": "load \(n)"],
                                                                                                  "idempotencyKey": "load-\(n)"])) ?? (0, nil)
                        if status == 202 || status == 200, let id = (body as? [String: Any])?["id"] as? String { load.accept(id); break }
                        if status == 503, let body = body as? [String: Any] { load.saw503(body) }
                        try? await Task.sleep(for: .milliseconds(200))
                    }
                    try? await Task.sleep(for: .milliseconds(300))
                }
            }
            #expect(await Self.waitUntil(seconds: 120) { load.accepted.count >= 3 })
            try server.down()
            #expect(await Self.waitUntil(seconds: 60) { load.unavailable != nil }, "a 503 while the database is down")
            try await Task.sleep(for: .seconds(5))
            let acceptedDuringOutage = load.accepted.count
            try server.up()
            #expect(await Self.waitUntil(seconds: 120) { load.accepted.count >= acceptedDuringOutage + 3 }, "\(cluster.logs)")
            sending.cancel()
            await sending.value

            let error = try #require(load.unavailable?["error"] as? [String: Any])
            #expect(error["code"] as? String == "database_unavailable")
            #expect((error["message"] as? String)?.contains("cannot reach its database") == true)
            let pushes = load.accepted
            #expect(Set(pushes).count == pushes.count, "one push per idempotency key")
            for id in pushes {
                #expect(await Self.waitUntil(seconds: 300) { try await apis[0].status(id)["status"] as? String == "done" }, "\(id)\n\(cluster.logs)")
                #expect((try await apis[0].status(id)["counts"] as? [String: Any])?["sent"] as? Int == devices)
            }
            #expect(cluster.simulator.statistics.accepted == pushes.count * devices, "each push reached each device once")
            #expect(Self.extra(cluster.simulator) == 0)
        } catch {
            Issue.record("\(error)\n\(cluster.logs)")
        }
        await cluster.shutdown()
    }
}
