import Foundation
import Testing
@testable import HeraldStore

/// `installation(appID:activeToken:)`: what a LeanCloud save finds before it writes. SQLite reads it in one
/// query; PostgreSQL through the audience query and the row by id; both must find the same installation.
extension StorageConformanceTests {
    @Test(arguments: StoreKind.available) func anInstallationIsFoundByItsActiveTokenOnly(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        try await makeApp(store, id: "app2")
        let first = try await register(store, iid: "i-1", token: "aa", tags: ["news", "sports"])
        _ = try await register(store, iid: "i-2", token: "bb")

        let found = try #require(try await store.installation(appID: "app1", activeToken: "aa"))
        #expect(found.id == first.id && found.tags == ["news", "sports"], "the row, with its tags")
        #expect(try await store.installation(appID: "app1", activeToken: "cc") == nil)
        #expect(try await store.installation(appID: "app2", activeToken: "aa") == nil, "another app's token is not this app's")

        // A reinstall registers the token under a new installation id: the old row gives it up ("Replaced").
        let reinstalled = try await register(store, iid: "i-3", token: "bb")
        #expect(try await store.installation(appID: "app1", activeToken: "bb")?.id == reinstalled.id)

        // A row that is not active is not found by its token.
        var retired = InstallationDraft(installationID: "i-3", deviceToken: "bb", environment: "production")
        retired.inactive = .init(reason: "Unregistered", at: t0)
        _ = try await store.upsertInstallation(appID: "app1", draft: retired, match: .installationIDOrToken, newID: UUID().uuidString, now: t0)
        #expect(try await store.installation(appID: "app1", id: reinstalled.id)?.active == false)
        #expect(try await store.installation(appID: "app1", activeToken: "bb") == nil)
    }
}
