import Foundation
import Testing
import HeraldServer
import HeraldProvider
@testable import HeraldCLI

/// `herald apps`, `credentials`, `installations` and `push` against a running provider (in this process,
/// on a real port): exit codes and the effects a user would check.
@Suite struct ServerCommandsTests {
    func start() async throws -> ProviderServer {
        var settings = ProviderServer.Settings()
        settings.port = 0
        settings.simulatorInspectionPort = nil
        settings.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-cli-server-\(UUID().uuidString)").path
        settings.service.databasePath = settings.dataDirectory + "/herald.sqlite"
        settings.service.pollInterval = 0.05
        return try await ProviderServer.start(settings, log: { _, _ in })
    }

    @Test func pushByTagFromTheCommandLineReachesTheDevice() async throws {
        let server = try await start()
        defer { Task { await server.stop() } }
        let sim = try #require(server.simulator)
        let url = "http://127.0.0.1:\(server.port)"
        let master = try #require(server.bootstrap.masterKey), admin = try #require(server.bootstrap.adminKey)
        let phone = sim.createDevice()
        let token = try sim.install(bundleID: "com.example.herald", environment: .sandbox, on: phone.id).token

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString).jsonl").path
        try #"{"deviceToken":"\#(token)","environment":"sandbox","tags":["news"]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await HeraldCommand.run(["installations", "import", file, "--server", url, "--api-key", master]) == 0)
        #expect(await HeraldCommand.run(["installations", "list", "--tag", "news", "--server", url, "--api-key", master]) == 0)
        #expect(await HeraldCommand.run(["push", "--tag", "news", "--title", "CLI", "--body", "from the command line",
                                         "--badge", "2", "--server", url, "--api-key", master]) == 0)
        var arrived = false
        for _ in 0..<100 where !arrived {
            arrived = sim.device(phone.id)?.inbox.isEmpty == false
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(arrived)
        let payload = try #require(sim.device(phone.id)?.inbox.first?.payload)
        #expect(String(decoding: payload, as: UTF8.self).contains("from the command line"))

        #expect(await HeraldCommand.run(["apps", "list", "--server", url, "--api-key", admin]) == 0)
        #expect(await HeraldCommand.run(["apps", "create", "--name", "Second", "--topic", "com.example.two", "--server", url, "--api-key", admin]) == 0)
    }

    @Test func aChunkedImportStoresEveryValidLineAndFailsOnTheBadOne() async throws {
        let server = try await start()
        defer { Task { await server.stop() } }
        let url = "http://127.0.0.1:\(server.port)"
        let master = try #require(server.bootstrap.masterKey), appID = try #require(server.bootstrap.appID)
        let lines = (1...5).map { i in #"{"deviceToken":"\#(String(format: "%064x", i))","environment":"sandbox"}"# }
            + [#"{"deviceToken":"not-hex","environment":"sandbox"}"#]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString).jsonl").path
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await HeraldCommand.run(["installations", "import", file, "--chunk", "2", "--server", url, "--api-key", master]) == 1)
        #expect(try await server.service.store.installationCount(appID: appID) == 5, "the five valid lines, in three requests")
        // Importing the same file again updates instead of duplicating.
        #expect(await HeraldCommand.run(["installations", "import", file, "--server", url, "--api-key", master]) == 1)
        #expect(try await server.service.store.installationCount(appID: appID) == 5)
    }

    @Test func serverErrorsAreReportedWithExitStatusOne() async throws {
        let server = try await start()
        defer { Task { await server.stop() } }
        let url = "http://127.0.0.1:\(server.port)"
        // A client key may not push: 403 from the server, exit 1.
        let client = try #require(server.bootstrap.clientKey)
        #expect(await HeraldCommand.run(["push", "--all", "--alert", "x", "--server", url, "--api-key", client]) == 1)
        // Nothing to target: a usage error before any request.
        #expect(await HeraldCommand.run(["push", "--alert", "x", "--server", url, "--api-key", client]) == 64)
        // Unreachable server: exit 1 with a message.
        #expect(await HeraldCommand.run(["apps", "list", "--server", "http://127.0.0.1:1", "--api-key", "k"]) == 1)
    }
}
