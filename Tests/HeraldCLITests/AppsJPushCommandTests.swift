import Foundation
import Testing
import HeraldServer
import HeraldProvider
@testable import HeraldCLI

/// `herald apps jpush set|show|delete` against a running provider: the keys land sealed in the store, the
/// secret never on the command line, and each subcommand has its help.
@Suite struct AppsJPushCommandTests {
    @Test func setShowAndDeleteTheAppsJPushKeys() async throws {
        var settings = ProviderServer.Settings()
        settings.port = 0
        settings.simulatorInspectionPort = nil
        settings.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-cli-jpush-\(UUID().uuidString)").path
        settings.service.databasePath = settings.dataDirectory + "/herald.sqlite"
        let server = try await ProviderServer.start(settings, log: { _, _ in })
        // The server stops (its sockets and threads) whether or not the checks pass.
        do { try await exercise(server, dataDirectory: settings.dataDirectory) } catch { await server.stop(); throw error }
        await server.stop()
    }

    func exercise(_ server: ProviderServer, dataDirectory: String) async throws {
        let url = "http://127.0.0.1:\(server.port)"
        let master = try #require(server.bootstrap.masterKey), appID = try #require(server.bootstrap.appID)
        let secret = "0123456789abcdef01234567"
        let file = dataDirectory + "/jpush-secret"
        try (secret + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let access = ["--app", appID, "--server", url, "--api-key", master]

        #expect(await HeraldCommand.run(["apps", "jpush", "set", "--app-key", "4f1c2b3a5d6e7f8091a2b3c4"] + access) == 64, "no secret given")
        #expect(await HeraldCommand.run(["apps", "jpush", "set", "--app-key", "4f1c2b3a5d6e7f8091a2b3c4", "--master-secret-file", file] + access) == 0)
        let stored = try #require(try await server.service.store.compatIdentity(appID: appID, provider: "jpush"))
        #expect(stored.publicID == "4f1c2b3a5d6e7f8091a2b3c4")
        #expect(!String(decoding: stored.sealed, as: UTF8.self).contains(secret) && !stored.hint.contains(secret), "sealed, hint only")
        #expect(await HeraldCommand.run(["apps", "jpush", "show"] + access) == 0)
        #expect(await HeraldCommand.run(["apps", "jpush", "delete"] + access) == 0)
        #expect(try await server.service.store.compatIdentity(appID: appID, provider: "jpush") == nil)
        #expect(await HeraldCommand.run(["apps", "jpush", "show"] + access) == 1, "nothing to show")
        for sub in AppsJPushCommand.subcommands {
            #expect(await HeraldCommand.run(sub.name.split(separator: " ").map(String.init) + ["--help"]) == 0)
        }
    }
}
