import Foundation
import Testing
import HeraldStore
@testable import HeraldServer

/// The registry at the service level: drafts in, records, pages or `ServiceError` out.
@Suite struct InstallationsServiceTests {
    @Test func registeringAgainUpdatesTheSameInstallation() async throws {
        let t = try await TestService()
        let app = try await t.serviceApp()
        let installations = t.services.installations
        let first = try await installations.register(appID: app.id, InstallationDraft(installationID: "i-1", deviceToken: token(1), environment: "sandbox"))
        #expect(first.created && first.installation.createdAt == start)
        t.clock.advance(by: 5)
        let again = try await installations.register(appID: app.id, InstallationDraft(installationID: "i-1", deviceToken: token(2)))
        #expect(!again.created && again.installation.id == first.installation.id && again.installation.deviceToken == token(2))
        #expect(again.installation.updatedAt == start.addingTimeInterval(5))

        await #expect(throws: ServiceError.missing("installationId", "Send installationId (a UUID the app keeps) and/or deviceToken.")) {
            try await installations.register(appID: app.id, InstallationDraft(environment: "sandbox"))
        }
    }

    @Test func updateTagsAndDeleteNameAMissingInstallation() async throws {
        let t = try await TestService()
        let app = try await t.serviceApp()
        let installations = t.services.installations
        let r = try await t.serviceRegister(app.id, "i-1", token: token(1), tags: ["a", "b"])
        var draft = InstallationDraft()
        draft.alias = .some("alice")
        #expect(try await installations.update(appID: app.id, id: "i-1", draft).alias == "alice")
        let tagged = try await installations.changeTags(appID: app.id, id: r.id, try TagChange(add: ["c"], remove: ["a"]))
        #expect(Set(tagged.tags) == ["b", "c"])

        let missing = InstallationsService.notFound("nope")
        await #expect(throws: missing) { try await installations.get(appID: app.id, id: "nope") }
        await #expect(throws: missing) { try await installations.update(appID: app.id, id: "nope", draft) }
        await #expect(throws: missing) { try await installations.changeTags(appID: app.id, id: "nope", try TagChange(add: ["x"])) }
        try await installations.delete(appID: app.id, id: "i-1")
        await #expect(throws: InstallationsService.notFound("i-1")) { try await installations.delete(appID: app.id, id: "i-1") }
        // Another app's installation is as missing as one that never existed.
        let other = try await t.serviceApp()
        let theirs = try await t.serviceRegister(other.id, "i-2", token: token(2))
        await #expect(throws: InstallationsService.notFound(theirs.id)) { try await installations.get(appID: app.id, id: theirs.id) }
    }

    @Test func aTagChangeIsValidWhenBuilt() {
        #expect(throws: ServiceError.missing("add", "Send add and/or remove.")) { try TagChange() }
        #expect(throws: ServiceError.invalid("add[1]", "Tag 'not ok' is invalid: 1–64 bytes, no spaces, commas or control characters.")) {
            try TagChange(add: ["ok", "not ok"])
        }
        #expect(throws: ServiceError.self) { try TagChange(remove: [""]) }
    }

    @Test func queriesPageByCursorAndListTagsAndAliases() async throws {
        let t = try await TestService()
        let app = try await t.serviceApp()
        let installations = t.services.installations
        for i in 0..<3 { try await t.serviceRegister(app.id, "i-\(i)", token: token(i), tags: i == 0 ? ["vip", "news"] : ["news"]) }
        let first = try await installations.query(appID: app.id, InstallationQuery(tag: "news", limit: 2))
        #expect(first.items.map(\.installationID) == ["i-0", "i-1"])
        let cursor = try #require(first.next)
        let second = try await installations.query(appID: app.id, InstallationQuery(tag: "news", afterSeq: cursor, limit: 2))
        #expect(second.items.map(\.installationID) == ["i-2"] && second.next == nil)
        // Tokens are matched the way they are stored: lowercase hex.
        let byToken = try await installations.query(appID: app.id, InstallationQuery(deviceToken: token(1).uppercased()))
        #expect(byToken.items.map(\.installationID) == ["i-1"])
        do {
            _ = try await installations.query(appID: app.id, InstallationQuery(deviceToken: "zz"))
            Issue.record("accepted a token that is not hex")
        } catch let e as ServiceError {
            #expect(e.code == "invalid_device_token" && e.field == "deviceToken")
        }

        let tags = try await installations.tags(appID: app.id, after: nil, limit: 1)
        #expect(tags.items.map(\.tag) == ["news"] && tags.items.first?.count == 3 && tags.next == "news")
        #expect(try await installations.tags(appID: app.id, after: "news", limit: 1).items.map(\.tag) == ["vip"])
        #expect(try await installations.removeTagEverywhere(appID: app.id, tag: "news") == 3)
        #expect(try await installations.aliases(appID: app.id, after: nil, limit: 10).items.isEmpty)
    }
}

extension InstallationsServiceTests {
    @Test func anImportBatchKeepsInactiveRowsInactive() async throws {
        let t = try await TestService()
        let app = try await t.serviceApp()
        try await t.serviceRegister(app.id, "i-1", token: token(1))
        var retired = InstallationDraft(installationID: "i-2", deviceToken: token(2), environment: "production")
        retired.inactive = .init(reason: "Unregistered", at: start.addingTimeInterval(-60))
        let result = try await t.services.installations.importBatch(appID: app.id, [InstallationDraft(installationID: "i-1", deviceToken: token(1)), retired])
        #expect(result.created == 1 && result.updated == 1)
        let row = try await t.services.installations.get(appID: app.id, id: "i-2")
        #expect(!row.active && row.inactiveReason == "Unregistered")
        await #expect(throws: ServiceError.self) { try await t.services.installations.importBatch(appID: app.id, [InstallationDraft(environment: "sandbox")]) }
    }
}
