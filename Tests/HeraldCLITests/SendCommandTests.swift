import Foundation
import Testing
import HeraldCrypto
import HeraldSimulator
@testable import HeraldCLI

/// `herald send` end to end against a real simulator on local ports, both auth methods.
@Suite struct SendCommandTests {
    struct Fixture {
        let simulator: Simulator
        let port: Int
        let directory: URL
        let token: String
        var caFile: String { directory.appendingPathComponent("ca.pem").path }
    }

    func start() async throws -> Fixture {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var config = SimulatorConfiguration()
        config.sandboxPort = 0
        config.inspectionPort = nil
        let simulator = try Simulator(configuration: config)
        let ports = try await simulator.start()
        try simulator.certificateAuthority().certificate.pem.write(to: dir.appendingPathComponent("ca.pem"), atomically: true, encoding: .utf8)
        let device = simulator.createDevice(name: "phone")
        let app = try simulator.install(bundleID: "com.example.news", environment: .sandbox, on: device.id)
        return Fixture(simulator: simulator, port: ports.sandbox, directory: dir, token: app.token)
    }

    func received(_ f: Fixture) -> [SimulatedNotification] {
        f.simulator.devices.flatMap { d in f.simulator.device(d.id)?.inbox ?? [] }
    }

    @Test func tokenAuthDeliversTheSeedsNewsPayload() async throws {
        let f = try await start()
        defer { Task { await f.simulator.stop() } }
        let generated = try f.simulator.generateSigningKey(keyID: "KEY1234567", teamID: "TEAM123456")
        let keyFile = f.directory.appendingPathComponent("AuthKey_KEY1234567.p8").path
        try generated.privateKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let code = await HeraldCommand.run(["send", "--host", "127.0.0.1:\(f.port)", "--ca", f.caFile, "--key", keyFile,
                                            "--key-id", "KEY1234567", "--team-id", "TEAM123456", "--topic", "com.example.news",
                                            "--token", f.token, "--alert", "新闻来了", "--category", "NEWS_CATEGORY",
                                            "--data", #"{"link_url":"https://raywenderlich.com"}"#, "--quiet"])
        #expect(code == 0)
        let got = try #require(received(f).first)
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(got.payload)) as? [String: Any])
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["alert"] as? String == "新闻来了")
        #expect(aps["category"] as? String == "NEWS_CATEGORY")
        #expect(payload["link_url"] as? String == "https://raywenderlich.com")
    }

    /// Issue #13: Live Activity flags build the aps keys Apple names, and APNSCore's rules refuse what Apple would.
    @Test func liveActivityFlagsBuildTheLiveActivityPayload() async throws {
        let f = try await start()
        defer { Task { await f.simulator.stop() } }
        let generated = try f.simulator.generateSigningKey(keyID: "KEY1234567", teamID: "TEAM123456")
        let keyFile = f.directory.appendingPathComponent("AuthKey_KEY1234567.p8").path
        try generated.privateKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let common = ["send", "--host", "127.0.0.1:\(f.port)", "--ca", f.caFile, "--key", keyFile, "--key-id", "KEY1234567",
                      "--team-id", "TEAM123456", "--topic", "com.example.news.push-type.liveactivity", "--token", f.token, "--quiet"]
        let code = await HeraldCommand.run(common + [
            "--title", "Kick-off", "--body", "Lyon – Nantes", "--event", "start", "--timestamp", "1800000000",
            "--attributes-type", "MatchAttributes", "--attributes", #"{"home":"Lyon"}"#, "--content-state", #"{"score":[0,0]}"#,
            "--stale-date", "1800007200", "--dismissal-date", "1800010800", "--filter-criteria", "sports", "--priority", "5"])
        #expect(code == 0)
        let got = try #require(received(f).first)
        #expect(got.pushType == "liveactivity" && got.priority == 5, "the push type follows from --event")
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(got.payload)) as? [String: Any])
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["event"] as? String == "start" && aps["timestamp"] as? Int == 1_800_000_000)
        #expect(aps["attributes-type"] as? String == "MatchAttributes" && (aps["attributes"] as? [String: Any])?["home"] as? String == "Lyon")
        #expect((aps["content-state"] as? [String: Any])?["score"] as? [Int] == [0, 0])
        #expect(aps["stale-date"] as? Int == 1_800_007_200 && aps["dismissal-date"] as? Int == 1_800_010_800)
        #expect(aps["filter-criteria"] as? String == "sports")

        // Apple's rules, before anything is sent: a start without attributes, an update without a timestamp.
        #expect(await HeraldCommand.run(common + ["--alert", "x", "--event", "start", "--timestamp", "now", "--attributes-type", "T"]) == 64)
        #expect(await HeraldCommand.run(common + ["--event", "update", "--content-state", #"{"a":1}"#]) == 64)
        #expect(await HeraldCommand.run(common + ["--event", "pause", "--timestamp", "now"]) == 64)
        #expect(received(f).count == 1)
        #expect(await HeraldCommand.run(common + ["--event", "update", "--timestamp", "now", "--content-state", #"{"a":1}"#]) == 0)
        #expect(received(f).count == 2)
    }

    @Test func certificateAuthWithAnEncryptedPEMDelivers() async throws {
        let f = try await start()
        defer { Task { await f.simulator.stop() } }
        let identity = try f.simulator.issueClientCertificate(bundleID: "com.example.news", environments: [.sandbox])
        let pem = identity.certificate.pem + (try identity.privateKey.pkcs8PEM(passphrase: "pushchat"))
        let file = f.directory.appendingPathComponent("ck.pem").path
        try pem.write(toFile: file, atomically: true, encoding: .utf8)
        let code = await HeraldCommand.run(["send", "--host", "127.0.0.1:\(f.port)", "--ca", f.caFile, "--cert", file,
                                            "--passphrase", "pushchat", "--token", f.token, "--alert", "hello", "--badge", "1", "--quiet"])
        #expect(code == 0, "the topic came from the certificate's UID")
        #expect(received(f).count == 1)
    }

    @Test func aRejectedTokenMakesTheExitStatusOne() async throws {
        let f = try await start()
        defer { Task { await f.simulator.stop() } }
        let identity = try f.simulator.issueClientCertificate(bundleID: "com.example.news", environments: [.sandbox])
        let file = f.directory.appendingPathComponent("c.pem").path
        try (identity.certificate.pem + identity.privateKey.pkcs8PEM()).write(toFile: file, atomically: true, encoding: .utf8)
        let unknown = String(repeating: "ab", count: 32)
        let code = await HeraldCommand.run(["send", "--host", "127.0.0.1:\(f.port)", "--ca", f.caFile, "--cert", file,
                                            "--token", f.token, "--token", unknown, "--alert", "hi", "--quiet"])
        #expect(code == 1)
        #expect(received(f).count == 1)
    }

    @Test(arguments: [
        (["send", "--alert", "x"], "no device token"),
        (["send", "--token", "abc", "--alert", "x"], "bad device token"),
        (["send", "--token", String(repeating: "a", count: 64), "--alert", "x"], "no credentials"),
        (["send", "--bogus"], "unknown option --bogus"),
    ])
    func usageErrorsExitWith64(arguments: [String], _: String) async {
        #expect(await HeraldCommand.run(arguments) == 64)
    }

    @Test func dryRunPrintsTheRequestWithoutConnecting() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-dry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let keyFile = dir.appendingPathComponent("k.p8").path
        try PrivateKey.generateP256().pkcs8PEM().write(toFile: keyFile, atomically: true, encoding: .utf8)
        // Port 9 (discard) has nothing listening: a dry run must not try.
        let code = await HeraldCommand.run(["send", "--host", "127.0.0.1:9", "--key", keyFile, "--key-id", "KEY1234567",
                                            "--team-id", "TEAM123456", "--topic", "com.example", "--token", String(repeating: "0a", count: 32),
                                            "--content-available", "--dry-run"])
        #expect(code == 0)
    }
}
