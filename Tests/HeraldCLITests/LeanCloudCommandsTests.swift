import Foundation
import Testing
import HeraldServer
@testable import HeraldCLI

/// `herald apps leancloud set|show|delete` against a running provider on a real port.
@Suite struct LeanCloudCommandsTests {
    @Test func keysAreSetShownAndRemovedFromTheCommandLine() async throws {
        let server = try await ServerCommandsTests().start()
        defer { Task { await server.stop() } }
        let url = "http://127.0.0.1:\(server.port)"
        let master = try #require(server.bootstrap.masterKey), appID = try #require(server.bootstrap.appID)
        let access = ["--server", url, "--api-key", master, "--app", appID]

        #expect(await HeraldCommand.run(["apps", "leancloud", "--help"]) == 0)
        #expect(AppsLeanCloudSetCommand.helpText().contains("--leancloud-app-id") && AppsLeanCloudCommand.helpText().contains("set"))
        #expect(await HeraldCommand.run(["apps", "leancloud", "set", "--leancloud-app-id", "cliApp-gzGzoHsz",
                                         "--app-key", "cli-app-key", "--master-key", "cli-master-key"] + access) == 0)
        let identity = try await server.service.store.compatIdentity(appID: appID, provider: "leancloud")
        #expect(identity?.publicID == "cliApp-gzGzoHsz" && identity?.hint.contains("cli-") == true && identity?.hint.contains("cli-app-key") == false)
        #expect(await HeraldCommand.run(["apps", "leancloud", "show"] + access) == 0)
        #expect(await HeraldCommand.run(["apps", "leancloud", "delete"] + access) == 0)
        #expect(await HeraldCommand.run(["apps", "leancloud", "show"] + access) != 0, "gone")
        #expect(await HeraldCommand.run(["apps", "leancloud", "set", "--leancloud-app-id", "x"] + access) != 0, "keys are required")
    }
}
