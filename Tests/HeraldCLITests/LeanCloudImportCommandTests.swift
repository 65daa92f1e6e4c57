import Foundation
import Testing
import HeraldServer
import HeraldProvider
@testable import HeraldCLI

/// `herald installations import --format leancloud FILE` against a running provider: the export is read in
/// pieces and sent in chunks, and the objectIds stay the installations' ids.
@Suite struct LeanCloudImportCommandTests {
    @Test func aPrettyPrintedResultsExportImportsInChunksKeepingObjectIDs() async throws {
        var settings = ProviderServer.Settings()
        settings.port = 0
        settings.simulatorInspectionPort = nil
        settings.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-cli-lc-\(UUID().uuidString)").path
        settings.service.databasePath = settings.dataDirectory + "/herald.sqlite"
        let server = try await ProviderServer.start(settings, log: { _, _ in })
        defer { Task { await server.stop() } }
        let url = "http://127.0.0.1:\(server.port)"
        let master = try #require(server.bootstrap.masterKey), appID = try #require(server.bootstrap.appID)

        // 25 iOS rows (one with a bad token), 5 Android rows, pretty-printed as LeanCloud's REST answer.
        var rows: [String] = []
        for i in 1...30 {
            let objectID = String(format: "65b0c0d0e0f0a0b0c0d0%04x", i)
            let type = i % 6 == 0 ? "android" : "ios"
            let token = i == 7 ? "zz" : String(format: "%064x", 1000 + i)
            rows.append("""
                {
                  "objectId": "\(objectID)",
                  "deviceType": "\(type)",
                  "deviceToken": "\(token)",
                  "channels": ["c\(i % 3)"],
                  "valid": \(i == 9 ? "false" : "true"),
                  "updatedAt": {"__type": "Date", "iso": "2026-06-01T00:00:00.000Z"},
                  "plan": "gold"
                }
            """)
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lc-\(UUID().uuidString).json").path
        try ("{\n  \"results\": [\n" + rows.joined(separator: ",\n") + "\n  ]\n}\n").write(toFile: file, atomically: true, encoding: .utf8)

        // One bad row: exit status 1, and the 24 good iOS rows are stored.
        #expect(await HeraldCommand.run(["installations", "import", file, "--format", "leancloud", "--chunk", "4",
                                         "--server", url, "--api-key", master]) == 1)
        #expect(try await server.service.store.installationCount(appID: appID) == 24)
        let ninth = try #require(try await server.service.store.installation(appID: appID, id: "65b0c0d0e0f0a0b0c0d00009"))
        #expect(ninth.active == false && ninth.tags == ["c0"] && ninth.properties.contains("gold"))
        #expect(try await server.service.store.installation(appID: appID, id: "65b0c0d0e0f0a0b0c0d00006") == nil, "android")
        // Again: everything updates in place.
        #expect(await HeraldCommand.run(["installations", "import", file, "--format", "leancloud",
                                         "--server", url, "--api-key", master]) == 1)
        #expect(try await server.service.store.installationCount(appID: appID) == 24)
    }
}
