import Foundation
import Testing
import HeraldStore
@testable import HeraldServer

/// Apps, keys and credentials at the service level: typed input in, records or `ServiceError` out.
@Suite struct AppsServiceTests {
    @Test func createUpdateAndDeleteAnApp() async throws {
        let t = try await TestService()
        let apps = t.service.services.apps
        let created = try await apps.create(try AppInput(name: "Demo", topic: "com.example.demo", defaultTimeZone: "Europe/Paris"))
        #expect(created.app.createdAt == start && created.app.defaultTimeZone == "Europe/Paris")
        #expect(try await t.service.env.authenticator.authenticate("Bearer \(created.masterKey)").role == .master(appID: created.app.id))
        #expect(try await t.service.env.authenticator.authenticate("Bearer \(created.clientKey)").role == .client(appID: created.app.id))

        t.clock.advance(by: 60)
        let updated = try await apps.update(id: created.app.id, try AppChanges(topic: .some(nil), rateLimit: .some(5)))
        #expect(updated.topic == nil && updated.rateLimit == 5 && updated.name == "Demo" && updated.updatedAt == start.addingTimeInterval(60))
        #expect(try await apps.get(id: created.app.id).topic == nil)
        #expect(try await apps.list().map(\.id) == [created.app.id])

        try await apps.delete(id: created.app.id)
        await #expect(throws: ServiceError.notFound("App \(created.app.id)")) { try await apps.get(id: created.app.id) }
        await #expect(throws: ServiceError.notFound("App \(created.app.id)")) { try await apps.delete(id: created.app.id) }
    }

    @Test func appInputBreakingARuleNamesTheField() throws {
        #expect(throws: ServiceError.invalid("defaultTimeZone", "defaultTimeZone 'Nowhere/City' is not an IANA time zone such as Europe/Paris.")) {
            try AppInput(name: "x", defaultTimeZone: "Nowhere/City")
        }
        #expect(throws: ServiceError.invalid("rateLimit", "rateLimit must be between 1 and 10000000.")) { try AppInput(name: "x", rateLimit: 0) }
        #expect(throws: ServiceError.missing("name")) { try AppInput(name: "") }
        #expect((try? AppChanges(defaultTimeZone: "Mars/Olympus")) == nil)
    }

    @Test func rotatingAKeyRevokesThePreviousOne() async throws {
        let t = try await TestService()
        let apps = t.service.services.apps
        let created = try await apps.create(try AppInput(name: "Demo"))
        t.clock.advance(by: 1)
        let issued = try await apps.rotateKey(appID: created.app.id, scope: .master)
        #expect(issued.record.scope == .master && issued.record.appID == created.app.id)
        let keys = try await apps.keys(appID: created.app.id)
        #expect(keys.filter { $0.scope == .master && $0.revokedAt == start.addingTimeInterval(1) }.count == 1)
        #expect(keys.filter { $0.scope == .master && $0.revokedAt == nil }.map(\.id) == [issued.record.id])
        await #expect(throws: AppsService.unknownScope) { try await apps.rotateKey(appID: created.app.id, scope: .admin) }
        await #expect(throws: ServiceError.notFound("App app_missing")) { try await apps.rotateKey(appID: "app_missing", scope: .client) }

        let admin = try await apps.rotateAdminKey()
        #expect(try await t.service.env.authenticator.authenticate("Bearer \(admin.secret)").role == .admin)
    }

    @Test func credentialsAreStoredPerEnvironmentWithMetadataOnly() async throws {
        let t = try await TestService()
        let app = try await t.service.services.apps.create(try AppInput(name: "Demo")).app
        let credentials = t.service.services.credentials
        let input = try CredentialInput.token(keyID: "ABC123DEFG", teamID: "TEAM123456", key: p8Credential["key"]!.stringValue!)
        let stored = try await credentials.put(appID: app.id, environment: "production", input)
        #expect(stored.kind == "token" && stored.keyID == "ABC123DEFG" && stored.teamID == "TEAM123456" && stored.createdAt == start)
        #expect(try await credentials.list(appID: app.id).map(\.environment) == ["production"])

        await #expect(throws: ServiceError(.notFound, code: "not_found", message: "Environment must be sandbox or production.", field: "environment")) {
            try await credentials.put(appID: app.id, environment: "staging", input)
        }
        await #expect(throws: ServiceError.notFound("App app_missing")) { try await credentials.list(appID: "app_missing") }
        try await credentials.delete(appID: app.id, environment: "production")
        await #expect(throws: ServiceError.notFound("Credential production")) { try await credentials.delete(appID: app.id, environment: "production") }
    }

    @Test func aTokenCredentialIsValidatedWhenBuilt() {
        #expect(throws: ServiceError.self) { try CredentialInput.token(keyID: "short", teamID: "TEAM123456", key: "x") }
        do {
            _ = try CredentialInput.token(keyID: "ABC123DEFG", teamID: "TEAM123456", key: "not a pem")
            Issue.record("accepted a key that is not PEM")
        } catch let e as ServiceError {
            #expect(e.kind == .invalid && e.code == "invalid_field" && e.field == "key")
        } catch {
            Issue.record("\(error)")
        }
    }
}
