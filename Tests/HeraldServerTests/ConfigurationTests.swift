import Foundation
import Synchronization
import Testing
@testable import HeraldServer

@Suite struct ConfigurationTests {
    @Test func dottedKeysSetTheirFields() throws {
        let key = Data(repeating: 7, count: 32).base64EncodedString()
        let c = try HeraldConfiguration(values: [
            "store.path": "/tmp/x.sqlite", "secrets.key": key, "admin.key": "a-long-enough-admin-key",
            "delivery.batchSize": "250", "delivery.pollInterval": "0.5", "delivery.workers": "false", "api.rateLimit": "0",
            "push.retentionDays": "7",
        ])
        #expect(c.databasePath == "/tmp/x.sqlite" && c.secretKey == Array(repeating: 7, count: 32))
        #expect(c.dispatchBatchSize == 250 && c.pollInterval == 0.5 && !c.runWorkers && c.apiRateLimit == 0 && c.retentionDays == 7)
    }

    @Test(arguments: [
        ("delivery.batchsize", "10"), ("delivery.batchSize", "0"), ("delivery.batchSize", "many"), ("secrets.key", "c2hvcnQ="),
        ("admin.key", "short"), ("delivery.workers", "yes"), ("api.rateLimit", "-1"),
    ])
    func badKeysAndValuesAreErrorsNamingTheKey(key: String, value: String) {
        #expect {
            _ = try HeraldConfiguration(values: [key: value])
        } throws: { error in
            (error as? HeraldConfiguration.Invalid)?.key == key
        }
    }

    @Test func storeURLChoosesPostgreSQLAndIsShownWithoutItsPassword() throws {
        #expect(HeraldConfiguration().storeURL == nil, "SQLite by default")
        #expect(HeraldConfiguration().effectiveValues["store.url"] == "(not set: SQLite at store.path)")
        for url in ["postgres://herald:s3cret@db:5432/herald", "postgresql://herald@db/herald?sslmode=require&password=s3cret",
                    "host=db dbname=herald password=s3cret"] {
            let c = try HeraldConfiguration(values: ["store.url": url])
            #expect(c.storeURL == url, "handed to libpq unchanged")
            let shown = try #require(c.effectiveValues["store.url"])
            #expect(!shown.contains("s3cret") && shown.contains("***"))
            #expect(c.effectiveValues["store.path"] == "(unused: store.url is set)")
        }
        #expect {
            _ = try HeraldConfiguration(values: ["store.url": "mysql://root:s3cret@db/herald"])
        } throws: { error in
            let invalid = error as? HeraldConfiguration.Invalid
            return invalid?.key == "store.url" && !(invalid?.description.contains("s3cret") ?? true)
        }
    }

    @Test func theSecretKeyFileIsCreatedOnceWithOwnerOnlyPermissions() async throws {
        let t = try await TestService()
        let path = t.directory.appendingPathComponent("secret.key").path
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let first = try String(contentsOfFile: path, encoding: .utf8)
        // Credentials sealed under it open after a restart with the same file.
        let app = try await t.createApp()
        try await t.register(app, "i", token: token(1))
        let restarted = try await TestService(directory: t.directory)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == first)
        _ = try await restarted.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        try await restarted.deliver()
        #expect(restarted.transport.notifications.count == 1)
    }
}

@Suite struct DispatchFailureTests {
    @Test func aCredentialThatNoLongerOpensPausesTheAppAndLeavesNothingInFlight() async throws {
        let first = try await TestService()
        let app = try await first.createApp()
        try await first.register(app, "i", token: token(1))
        // Restarted with another secret key: the stored credential cannot be opened.
        let lines = Mutex<[String]>([])
        let other = try await TestService(directory: first.directory, configure: { $0.secretKey = Array(repeating: 9, count: 32) },
                                          log: { _, line in lines.withLock { $0.append(line) } })
        let id = try await other.push(app, ["target": ["all": true], "content": ["alert": "x"]])
        try await other.deliver()
        #expect(other.transport.notifications.isEmpty)
        #expect(lines.withLock { $0 }.contains { $0.contains("cannot be opened") && $0.contains("secrets.key") })
        let status = await other.status(app, id, include: true)
        #expect(status["deliveries"]?.arrayValue?.map { $0["state"] } == ["pending"])
        #expect(status["paused"]?["reason"] == "CredentialUnreadable")
        // Uploading the credential again (sealed under the current key) resumes delivery.
        #expect(await other.call("PUT", "/v1/apps/\(app.id)/credentials/production", key: app.master, json: p8Credential).status == 200)
        try await other.deliver()
        #expect(other.transport.notifications.count == 1)
    }
}
