import Foundation
import Testing
import HeraldHTTP
import HeraldServer
import HeraldStore
@testable import HeraldSQLite
@testable import HeraldSimulator
import HeraldTestSupport

/// `herald serve` (the built binary, on SQLite, with the default delivery settings) killed with SIGKILL at
/// three random points of one 100,000-device fan-out and started again each time, delivering to a simulator
/// in this process that recognises a notification sent twice by its apns-id. Nothing may be lost, nothing
/// counted twice, and only what was in flight at each kill may be sent again: what the transport had been
/// handed and not yet answered and journaled, not the pages sent since the last page write. About a minute:
/// a fan-out large enough that a kill lands in the middle of it, three times. It prints what each kill left
/// unrecorded and re-sent.
@Suite(.serialized) struct FanOutCrashTests {
    static let bundle = "com.example.crashes"
    static let adminKey = "hk_admin_crashes_test_0123456789abcdef"
    typealias API = MultiNodeTests.API
    /// Extra `herald serve` arguments (HERALD_CRASH_ARGS), to measure other settings.
    static let extraArgs = (ProcessInfo.processInfo.environment["HERALD_CRASH_ARGS"] ?? "").split(separator: " ").map(String.init)
    static func setting(_ flag: String) -> Double? {
        extraArgs.firstIndex(of: flag).flatMap { extraArgs.indices.contains($0 + 1) ? Double(extraArgs[$0 + 1]) : nil }
    }
    /// What the transport is handed at once with the server's settings: `delivery.batchSize` x `delivery.concurrency`.
    /// Of it, at most `delivery.inFlight` is on the wire; the rest of a kill's re-sent set is answers not yet journaled.
    static let window = Int(setting("--delivery-batch-size") ?? 500) * Int(setting("--delivery-concurrency") ?? 4)
    static let inFlight = setting("--delivery-in-flight").map(Int.init) ?? HeraldConfiguration.defaultInFlight
    static let journalOff = setting("--delivery-journal-interval") == 0
    /// `HERALD_CRASH_BINARY` measures another build (a release build: a server that keeps up with its answers).
    static let binary = ProcessInfo.processInfo.environment["HERALD_CRASH_BINARY"] ?? MultiNodeTests.binary

    final class Server: @unchecked Sendable {
        let args: [String]
        let port = FreePort.next()
        let log: URL
        let storePath: String
        private var process: ChildProcess?
        private var runs = 0

        init(directory: URL, simPort: Int, caFile: URL) {
            log = directory.appendingPathComponent("serve.log")
            storePath = directory.appendingPathComponent("serve/herald.sqlite").path
            args = ["serve", "--http-port", "\(port)", "--data-dir", directory.appendingPathComponent("serve").path, "--store-path", storePath,
                    "--admin-key", FanOutCrashTests.adminKey, "--simulator-enabled", "false", "--log-format", "json",
                    "--apns-sandbox-endpoint", "127.0.0.1:\(simPort)", "--apns-ca-file", caFile.path, "--delivery-poll-interval", "0.05"]
                + FanOutCrashTests.extraArgs
        }

        func start() async throws {
            runs += 1
            let runLog = log.appendingPathExtension("\(runs)")
            _ = FileManager.default.createFile(atPath: runLog.path, contents: nil)
            process = try ChildProcess(FanOutCrashTests.binary, args, output: .file(runLog.path), error: .sameAsOutput)
            let api = API(port: port, key: FanOutCrashTests.adminKey)
            try #require(await MultiNodeTests.waitUntil(seconds: 120) { try await api.call("GET", "/readyz").0 == 200 }, "\(tail)")
        }
        func kill9() async { process?.signal(SIGKILL); _ = await process?.exit() }
        func stop() async { if let process, process.isRunning { process.signal(SIGTERM); _ = await process.exit() } }
        var tail: String {
            let text = (try? String(contentsOf: log.appendingPathExtension("\(runs)"), encoding: .utf8)) ?? ""
            return text.split(separator: "\n").suffix(15).joined(separator: "\n")
        }

        /// What the killed server had recorded of the push: members written as sent, and accepted ones
        /// journaled beyond the cursor (read from the file while no server runs).
        func recorded(pushID: String) async throws -> (sent: Int, journaled: Int) {
            let store = try await SQLiteStore(path: storePath)
            let push = try #require(try await store.push(id: pushID))
            let journaled = try await store.journaledSeqs(pushID: pushID, after: push.fanoutCursor, through: .max).count
            return (push.counts.sent, journaled)
        }
    }

    @Test func threeKillsDuringAFanOutLoseNothingAndResendOnlyWhatWasInFlight() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build first: swift build (make test does)")
        let audience = Int(ProcessInfo.processInfo.environment["HERALD_CRASH_DEVICES"] ?? "") ?? 100_000
        let began = Date()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-crashes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("serve"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = SimulatorConfiguration()
        config.sandboxPort = 0
        config.productionPort = nil
        let simulator = try Simulator(configuration: config)
        let simPort = try await simulator.start().sandbox
        let caFile = directory.appendingPathComponent("ca.pem")
        try simulator.certificateAuthority().certificate.pem.write(to: caFile, atomically: true, encoding: .utf8)
        let tokens = try (0..<audience).map { _ in
            try simulator.install(bundleID: Self.bundle, environment: .sandbox, on: simulator.createDevice().id).token
        }
        let made = Date()
        let server = Server(directory: directory, simPort: simPort, caFile: caFile)
        do {
            try await server.start()
            let admin = API(port: server.port, key: Self.adminKey)
            let app = try #require(try await admin.call("POST", "/v1/apps", ["name": "Crashes", "topic": Self.bundle]).1 as? [String: Any])
            let appID = try #require(app["id"] as? String)
            let master = API(port: server.port, key: try #require((app["keys"] as? [String: Any])?["master"] as? String))
            let key = try simulator.generateSigningKey(bundleIDs: [Self.bundle])
            #expect(try await master.call("PUT", "/v1/apps/\(appID)/credentials/sandbox",
                                          ["type": "token", "keyId": key.keyID, "teamId": key.teamID, "key": key.privateKeyPEM]).0 == 200)
            // Straight into the SQLite file beside the running server, in the store's import batches: the HTTP
            // import (tested elsewhere) of 100,000 lines by a debug build would take most of the test's time.
            do {
                let store = try await SQLiteStore(path: server.storePath)
                for start in stride(from: 0, to: tokens.count, by: 10_000) {
                    let drafts = tokens[start..<min(start + 10_000, tokens.count)].map {
                        InstallationDraft(installationID: nil, deviceToken: $0, environment: "sandbox")
                    }
                    _ = try await store.importInstallations(appID: appID, drafts: drafts, newIDs: drafts.map { _ in UUID().uuidString.lowercased() }, now: Date())
                }
            }
            let imported = Date()
            let push = try #require(try await master.call("POST", "/v1/pushes", ["target": ["all": true], "content": ["alert": "once, even through crashes"]]).1 as? [String: Any])
            let pushID = try #require(push["id"] as? String)

            // Three kills, each at a random point of its own third of the fan-out, and a restart after each.
            // At each kill: what APNs had accepted (once each) and what the killed server had recorded of it;
            // the difference is what the restart sends again.
            var kills: [(accepted: Int, unrecorded: Int, journaled: Int, extraBefore: Int)] = []
            for third in 0..<3 {
                let point = Int(Double(audience) * (Double(third) + Double.random(in: 0.2...0.8)) / 3)
                #expect(await MultiNodeTests.waitUntil(seconds: 300) { simulator.statistics.accepted >= point }, "\(server.tail)")
                await server.kill9()
                let extra = MultiNodeTests.extra(simulator)
                let accepted = simulator.statistics.accepted - extra
                #expect(accepted < audience, "killed in the middle of the fan-out")
                let recorded = try await server.recorded(pushID: pushID)
                kills.append((accepted, accepted - recorded.sent - recorded.journaled, recorded.journaled, extra))
                try await server.start()
            }
            #expect(await MultiNodeTests.waitUntil(seconds: 600) { try await master.status(pushID)["status"] as? String == "done" }, "\(server.tail)")
            let status = try await master.status(pushID)
            #expect((status["counts"] as? [String: Any])?["sent"] as? Int == audience, "\(status)")
            let extra = MultiNodeTests.extra(simulator)
            #expect(simulator.statistics.accepted - extra == audience, "every device got the notification")
            // A kill re-sends what was on the wire (at most `delivery.inFlight`) or answered and not yet journaled,
            // all of it within what the transport had been handed (batch size x concurrency); never the pages
            // written or journaled before it.
            let perKill = zip(kills.map(\.extraBefore).dropFirst() + [extra], kills.map(\.extraBefore)).map { $0 - $1 }
            #expect(perKill.allSatisfy { $0 <= Self.window }, "re-sent \(perKill) per kill, more than the \(Self.window) handed to the transport")
            // The pages out at a kill were journaled as APNs accepted them (unless the journal is turned off).
            if !Self.journalOff { #expect(kills.contains { $0.journaled > 0 }, "nothing journaled at any kill: \(kills)") }
            // Issue #19's target: at most 0.5% of the audience re-sent after a kill. The window on the wire is sized
            // to the simulator (`InFlightWindow`: 256 when it answers a lone request within 2.56 ms), and kills then
            // stay within it. But on a machine busy with other tests the simulator can look far away (the window
            // opens toward `delivery.inFlight`, 2,000), and a journal commit that waited behind a page write leaves
            // more answers unjournaled (docs/performance.md, "Crash duplicates, round 5"). So it is checked when
            // asked for: HERALD_CRASH_TARGET_PERCENT=0.5.
            if let target = ProcessInfo.processInfo.environment["HERALD_CRASH_TARGET_PERCENT"].flatMap(Double.init) {
                #expect(perKill.allSatisfy { Double($0) <= Double(audience) * target / 100 }, "re-sent \(perKill) per kill, more than \(target)% of \(audience)")
            }
            let scraped = try await admin.client.send(HTTPRequest(method: "GET", target: "/metrics", headers: [:], body: []))
            let metrics = String(decoding: scraped.body, as: UTF8.self)
            // The journal's commits in the last run and how long an acceptance waited for its commit, and the
            // window on the wire the last probe chose.
            let lastRun = metrics.split(separator: "\n").filter { $0.hasPrefix("herald_delivery_journal") || $0.hasPrefix("herald_apns_in_flight_window") }
                .map(String.init)
            print("fan-out crashes: \(audience) devices, killed at \(kills.map(\.accepted)) accepted, journaled beyond the cursor \(kills.map(\.journaled)), "
                  + "unrecorded at each kill \(kills.map(\.unrecorded)), "
                  + "duplicates after each kill \(perKill) (\(extra) in all, \(Double(extra) * 100 / Double(audience))%; window on the wire at most \(Self.inFlight)); last run's journal and window: \(lastRun.joined(separator: ", ")); "
                  + String(format: "devices %.1f s, server and import %.1f s, push with three restarts %.1f s",
                           made.timeIntervalSince(began), imported.timeIntervalSince(made), Date().timeIntervalSince(imported)))
        } catch {
            Issue.record("\(error)\n\(server.tail)")
        }
        await server.stop()
        await simulator.stop()
    }
}
