import Foundation
import Testing
import HeraldHTTP
@testable import HeraldServer
import HeraldTestSupport
import HeraldProvider
import HeraldSimulator

/// The web console in a real browser: `herald serve`'s server (with its built-in simulator) on a real port,
/// a simulated iPhone with the default app, and headless Chromium driven through WebDriver by
/// Tests/ConsoleBrowser/console_test.py (selenium from scripts/python-clients.sh's environment, Debian's
/// chromium and chromium-driver). It signs in, composes, sends, watches the push finish, sees the
/// notification on the phone, opens it, looks the device up, and checks the security rules from the page.
/// Screenshots go to docs/console/ (docs/console.md shows them). `make test` sets HERALD_KALYKE_PYTHON; a
/// bare `swift test` skips this.
@Suite struct ConsoleBrowserTests {
    static let python = ProcessInfo.processInfo.environment["HERALD_KALYKE_PYTHON"]
    static let driverInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    @Test(.enabled(if: python != nil && driverInstalled, "needs HERALD_KALYKE_PYTHON (with selenium) and chromium-driver"))
    func theConsoleWorksInHeadlessChromium() async throws {
        var settings = ProviderServer.Settings()
        settings.port = 0
        settings.simulatorInspectionPort = nil
        settings.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-console-\(UUID().uuidString)").path
        settings.service.databasePath = settings.dataDirectory + "/herald.sqlite"
        settings.service.adminKey = testAdminKey
        settings.service.pollInterval = 0.05
        let server = try await ProviderServer.start(settings, log: { _, _ in })
        let simulator = try #require(server.simulator)
        let appID = try #require(server.bootstrap.appID), client = try #require(server.bootstrap.clientKey)

        // A phone with the default app, registered in Chinese with a tag.
        let phone = simulator.createDevice(name: "Demo iPhone")
        let token = try simulator.install(bundleID: settings.defaultBundleID, environment: .sandbox, on: phone.id).token
        let registered = await call(server, "POST", "/v1/installations", key: client, json: [
            "installationId": "demo-phone", "deviceToken": .string(token), "environment": "sandbox", "tags": ["beta"], "locale": "zh-Hans",
        ])
        #expect(registered.status == 201, "\(registered.text)")
        let other = await call(server, "POST", "/v1/apps", key: testAdminKey, json: ["name": "Other app", "topic": "com.example.other"])
        let otherMaster = try #require(other.body["keys"]?["master"]?.stringValue)
        // A JPush identity (the LeanCloud one stays unset): the Apps screen shows one of each.
        let jpush = await call(server, "PUT", "/v1/apps/\(appID)/jpush", key: testAdminKey,
                               json: ["appKey": "4f1c2b3a5d6e7f8091a2b3c4", "masterSecret": "jpush-master-secret-for-the-console"])
        #expect(jpush.status == 200, "\(jpush.text)")

        let fixtures: JSON = ["adminKey": .string(testAdminKey), "appId": .string(appID), "token": .string(token), "tag": "beta",
                              "deviceId": .string(phone.id), "otherMasterKey": .string(otherMaster), "otherAppName": "Other app"]
        let log = URL(fileURLWithPath: settings.dataDirectory).appendingPathComponent("browser.log")
        let status = try await Self.runPython(["console_test.py", "http://127.0.0.1:\(server.port)", fixtures.encoded,
                                               Self.repository.appendingPathComponent("docs/console").path], log: log)
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(status == 0, "the browser test failed:\n\(output.suffix(4000))")
        await server.stop()
        if status == 0 { try? FileManager.default.removeItem(atPath: settings.dataDirectory) }
    }

    struct Reply { var status: Int; var body: JSON; var text: String }

    func call(_ server: ProviderServer, _ method: String, _ path: String, key: String, json: JSON) async -> Reply {
        let response = await server.service.handler(HTTPRequest(method: method, target: path,
                                                                headers: ["authorization": "Bearer \(key)", "content-type": "application/json"],
                                                                body: json.bytes, remoteAddress: "127.0.0.1:1"))
        return Reply(status: response.status, body: (try? JSON(parsing: response.body)) ?? .null, text: String(decoding: response.body, as: UTF8.self))
    }

    /// Runs a script of Tests/ConsoleBrowser with its output in `log` (a file, so a long log cannot fill a pipe).
    static func runPython(_ arguments: [String], log: URL) async throws -> Int32 {
        let child = try ChildProcess(try #require(python), ["-u"] + arguments,
                                     workingDirectory: repository.appendingPathComponent("Tests/ConsoleBrowser").path,
                                     output: .file(log.path), error: .sameAsOutput)
        return await child.exit()
    }
}
