import Foundation
import Testing
import HeraldSimulator
@testable import HeraldCLI

/// `herald send` to many devices while the simulator ends every connection with GOAWAY after 50 streams:
/// whatever the client resends must be what the server did not take, so no device gets a notification twice.
@Suite struct GoAwaySendTests {
    @Test func everyDeviceGetsExactlyOneNotificationAcrossRepeatedRuns() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-cli-goaway-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = SimulatorConfiguration()
        config.sandboxPort = 0
        config.inspectionPort = nil
        config.faults.goAwayAfterStreams = 50
        let simulator = try Simulator(configuration: config)
        let port = try await simulator.start().sandbox
        defer { Task { await simulator.stop() } }
        let caFile = directory.appendingPathComponent("ca.pem").path
        try simulator.certificateAuthority().certificate.pem.write(toFile: caFile, atomically: true, encoding: .utf8)
        let key = try simulator.generateSigningKey(keyID: "KEY1234567", teamID: "TEAM123456")
        let keyFile = directory.appendingPathComponent("AuthKey_KEY1234567.p8").path
        try key.privateKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)

        var devices: [String] = []
        var tokens: [String] = []
        for _ in 0..<2_000 {
            let device = simulator.createDevice()
            devices.append(device.id)
            tokens.append(try simulator.install(bundleID: "com.example.app", environment: .sandbox, on: device.id).token)
        }
        let tokensFile = directory.appendingPathComponent("tokens.txt").path
        try tokens.joined(separator: "\n").write(toFile: tokensFile, atomically: true, encoding: .utf8)

        for run in 1...4 {
            simulator.reset()
            let code = await HeraldCommand.run(["send", "--host", "127.0.0.1:\(port)", "--ca", caFile, "--key", keyFile,
                                                "--key-id", "KEY1234567", "--team-id", "TEAM123456", "--topic", "com.example.app",
                                                "--tokens-file", tokensFile, "--alert", "run \(run)", "--quiet"])
            #expect(code == 0, "run \(run): every notification accepted")
            let counts = devices.map { simulator.device($0)?.inbox.count ?? 0 }
            let twice = counts.filter { $0 > 1 }.count
            let missing = counts.filter { $0 == 0 }.count
            #expect(twice == 0, "run \(run): \(twice) devices got the notification more than once")
            #expect(missing == 0, "run \(run): \(missing) devices got nothing")
            #expect(simulator.statistics.accepted == 2_000, "run \(run)")
            #expect(simulator.statistics.duplicates.isEmpty, "run \(run)")
            #expect((simulator.statistics.faults["goAway"] ?? 0) >= 40, "run \(run): the fault did end connections")
        }
    }
}
