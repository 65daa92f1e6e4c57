import Foundation
import HeraldHTTP
import Testing
@testable import HeraldSimulator

@Suite("State in the data directory")
struct PersistenceTests {
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("herald-sim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func devicesTokensKeysAndTheCASurviveARestart() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = try TestKey()
        var configuration = SimulatorConfiguration()
        configuration.dataDirectory = dir
        let clock = TestClock()

        let first = try Simulator(configuration: configuration, clock: clock.function)
        let device = first.createDevice(name: "Kept")
        let token = try first.install(bundleID: "com.example.app", environment: .sandbox, on: device.id).token
        let gone = try first.install(bundleID: "com.example.gone", environment: .sandbox, on: device.id).token
        try first.uninstall(bundleID: "com.example.gone", from: device.id)
        try first.registerSigningKey(key.signingKey())
        let ca = try first.certificateAuthority().certificate
        first.flush()
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("state.json").path))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("ca.pem").path))

        let second = try Simulator(configuration: configuration, clock: clock.function)
        #expect(second.device(device.id)?.name == "Kept")
        #expect(try second.certificateAuthority().certificate == ca)
        let connection = ConnectionAuthState(environment: .sandbox, credential: .providerToken)
        let jwt = try key.token(issuedAt: clock.now)
        func send(_ token: String, topic: String) -> HTTPResponse {
            second.provider.process(request: push(to: token, topic: topic, headers: [("authorization", "bearer \(jwt)")]),
                                    connection: connection, now: clock.now)
        }
        #expect(send(token, topic: "com.example.app").status == 200)
        #expect(send(gone, topic: "com.example.gone").status == 410)
        // New devices do not reuse ids.
        #expect(second.createDevice().id != device.id)
    }

    @Test func unreadableStateIsReportedWithThePath() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("{broken".utf8).write(to: dir.appendingPathComponent("state.json"))
        var configuration = SimulatorConfiguration()
        configuration.dataDirectory = dir
        do {
            _ = try Simulator(configuration: configuration)
            Issue.record("broken state was loaded")
        } catch {
            #expect("\(error)".contains("state.json"))
        }
    }
}
