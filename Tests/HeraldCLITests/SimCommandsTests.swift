import Foundation
import Testing
import HeraldCrypto
import HeraldSimulator
@testable import HeraldCLI

/// `herald sim` subcommands against a simulator running in this process on real ports.
@Suite struct SimCommandsTests {
    struct Fixture {
        let simulator: Simulator
        let url: String
        let directory: URL

        func file(_ name: String) -> String { directory.appendingPathComponent(name).path }
    }

    func start() async throws -> Fixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-cli-sim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = SimulatorConfiguration()
        config.sandboxPort = 0
        config.inspectionPort = 0
        let simulator = try Simulator(configuration: config)
        let ports = try await simulator.start()
        return Fixture(simulator: simulator, url: "http://127.0.0.1:\(ports.inspection)", directory: directory)
    }

    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func simKeyWritesThePrivateKeyForTheOwnerOnly() async throws {
        let f = try await start()
        defer { Task { await f.simulator.stop() } }
        #expect(await HeraldCommand.run(["sim", "key", "--bundle-id", "com.example.app", "--key-id", "KEY1234567",
                                         "--out", f.directory.path, "--sim", f.url]) == 0)
        let file = f.file("AuthKey_KEY1234567.p8")
        #expect(try mode(file) == 0o600)
        #expect(try PrivateKey(pemFile: file).publicKey == f.simulator.signingKeys.first?.publicKey)
    }

    @Test func simCertWritesTheKeyMaterialForTheOwnerOnly() async throws {
        let f = try await start()
        defer { Task { await f.simulator.stop() } }
        let prefix = f.file("news")
        #expect(await HeraldCommand.run(["sim", "cert", "--bundle-id", "com.example.news", "--out", prefix, "--sim", f.url]) == 0)
        #expect(try mode(prefix + ".p12") == 0o600)
        #expect(try mode(prefix + ".pem") == 0o600)
    }

    @Test func simPushWithoutADeviceReachesEveryDeviceWithTheApp() async throws {
        let f = try await start()
        defer { Task { await f.simulator.stop() } }
        let phones = (0..<3).map { f.simulator.createDevice(name: "phone \($0)") }
        for phone in phones.prefix(2) { _ = try f.simulator.install(bundleID: "com.example.app", environment: .sandbox, on: phone.id) }
        _ = try f.simulator.install(bundleID: "com.example.other", environment: .sandbox, on: phones[2].id)
        let file = f.file("hello.apns")
        try #"{"Simulator Target Bundle":"com.example.app","aps":{"alert":"to everyone"}}"#.write(toFile: file, atomically: true, encoding: .utf8)

        #expect(await HeraldCommand.run(["sim", "push", file, "--sim", f.url]) == 0)
        for phone in phones.prefix(2) {
            let inbox = try #require(f.simulator.device(phone.id)).inbox
            #expect(inbox.count == 1)
            let text = String(decoding: inbox.first?.payload ?? [], as: UTF8.self)
            #expect(text.contains("to everyone"))
        }
        #expect(f.simulator.device(phones[2].id)?.inbox.isEmpty == true, "that device does not have the app")

        #expect(await HeraldCommand.run(["sim", "push", file, "--device", phones[0].id, "--sim", f.url]) == 0)
        #expect(f.simulator.device(phones[0].id)?.inbox.count == 2)
        #expect(f.simulator.device(phones[1].id)?.inbox.count == 1)
    }
}
