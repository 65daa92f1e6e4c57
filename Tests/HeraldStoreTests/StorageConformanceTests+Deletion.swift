import Foundation
import Testing
@testable import HeraldStore

/// What a deletion takes with it. On PostgreSQL installations and their tags have no foreign keys since
/// migration 9: the store deletes them itself, and these tests would find what it left behind.
extension StorageConformanceTests {
    @Test(arguments: StoreKind.available) func deletingAnAppDeletesItsInstallationsAndTagsAndNothingElse(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store, id: "app1")
        try await makeApp(store, id: "app2")
        for i in 0..<3 {
            _ = try await register(store, app: "app1", iid: "i-\(i)", token: "a\(i)", tags: ["news", "n\(i)"])
            _ = try await register(store, app: "app2", iid: "i-\(i)", token: "a\(i)", tags: ["news"])
        }
        var imported = InstallationDraft(installationID: "i-imported", deviceToken: "b1", environment: "production")
        imported.tags = ["news", "imported"]
        #expect(try await store.importInstallations(appID: "app1", drafts: [imported], newIDs: [UUID().uuidString], now: t0) == (1, 0))
        for app in ["app1", "app2"] {
            let push = PushRecord(id: "p-\(app)", appID: app, idempotencyKey: nil, request: "{}", status: .queued, createdAt: t0, sendAt: nil, expiresAt: nil)
            _ = try await store.insertPush(push, idempotentSince: t0)
            let progress = try await store.fanOut(pushID: push.id, selector: AudienceSelector(source: .all, tagsAny: ["news"]), badge: nil,
                                                  limit: 10, claim: 0, now: t0) { members in
                members.map { PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment, variant: "", notBefore: t0) }
            }
            #expect(progress.planned == (app == "app1" ? 4 : 3))
        }
        // A page written after it was sent (a large fan-out's path) checks its own references, with SQLite's
        // foreign keys off for its transaction only: the cascade below must still reach its rows.
        _ = try await store.insertPush(PushRecord(id: "p-page", appID: "app1", idempotencyKey: nil, request: "{}", status: .queued,
                                                  createdAt: t0, sendAt: nil, expiresAt: nil), idempotentSince: t0)
        let page = try await store.audience(appID: "app1", selector: AudienceSelector(source: .all), after: 0, limit: 10)
        #expect(try await store.recordPage(pushID: "p-page", after: 0, cursor: page.last?.seq ?? 0, done: true, badge: nil, rows: page.map {
            PageDelivery(planned: PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment,
                                                  variant: "", notBefore: t0), outcome: .sent(status: 200))
        }, now: t0))
        #expect(try await store.deliveries(pushID: "p-page", state: nil, afterID: 0, limit: 10).count == 4)

        #expect(try await store.deleteApp(id: "app1"))
        #expect(try await store.deliveries(pushID: "p-app1", state: nil, afterID: 0, limit: 10).isEmpty)
        #expect(try await store.deliveries(pushID: "p-page", state: nil, afterID: 0, limit: 10).isEmpty)
        #expect(try await store.deliveries(pushID: "p-app2", state: nil, afterID: 0, limit: 10).count == 3)
        #expect(try await store.installationCount(appID: "app1") == 0)
        #expect(try await store.tags(appID: "app1", after: nil, limit: 10).isEmpty)
        #expect(try await store.installationCount(appID: "app2") == 3)
        #expect(try await store.tags(appID: "app2", after: nil, limit: 10).map(\.count) == [3])

        // Writes for the deleted app store nothing.
        await #expect(throws: StoreError.notFound) {
            _ = try await store.insertPush(PushRecord(id: "p-late", appID: "app1", idempotencyKey: nil, request: "{}", status: .queued,
                                                      createdAt: t0, sendAt: nil, expiresAt: nil), idempotentSince: t0)
        }
        #expect(try await store.push(id: "p-late") == nil)
        await #expect(throws: (any Error).self) { _ = try await register(store, app: "app1", iid: "late", token: "c1", tags: ["late"]) }
        // Neither store has SQL check an import's rows against the app (SQLite turns its foreign keys off
        // for an import batch): each checks the app once, and refuses the whole batch.
        await #expect(throws: StoreError.notFound) {
            _ = try await store.importInstallations(appID: "app1", drafts: [imported], newIDs: [UUID().uuidString], now: t0)
        }
        // An app made again under the same id starts empty: nothing of the old one was left behind.
        try await makeApp(store, id: "app1")
        #expect(try await store.installationCount(appID: "app1") == 0)
        #expect(try await store.tags(appID: "app1", after: nil, limit: 10).isEmpty)
        let fresh = try await register(store, app: "app1", iid: "i-0", token: "a0", tags: ["solo"])
        #expect(fresh.tags == ["solo"])
        #expect(try await store.tags(appID: "app1", after: nil, limit: 10).map(\.tag) == ["solo"])
    }

    @Test(arguments: StoreKind.available) func deletingAnInstallationDeletesItsTagsWhileOthersKeepTheirs(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        let gone = try await register(store, iid: "i-1", token: "aa", tags: ["news", "only-mine"])
        let kept = try await register(store, iid: "i-2", token: "bb", tags: ["news"])
        var imported = InstallationDraft(installationID: "i-3", deviceToken: "cc", environment: "production")
        imported.tags = ["news", "imported"]
        _ = try await store.importInstallations(appID: "app1", drafts: [imported], newIDs: [UUID().uuidString], now: t0)
        let importedRecord = try #require(try await store.installation(appID: "app1", id: "i-3"))

        #expect(try await store.deleteInstallation(appID: "app1", id: gone.id))
        #expect(try await !store.deleteInstallation(appID: "app1", id: gone.id))
        #expect(try await store.deleteInstallation(appID: "app1", id: importedRecord.id))
        let tags = try await store.tags(appID: "app1", after: nil, limit: 10)
        #expect(tags.map(\.tag) == ["news"])
        #expect(tags.map(\.count) == [1])
        #expect(try await store.installation(appID: "app1", id: kept.id)?.tags == ["news"])
        // The audience of a tag holds only the installation that is left.
        let members = try await store.audience(appID: "app1", selector: AudienceSelector(source: .all, tagsAny: ["news"]), after: 0, limit: 10)
        #expect(members.map(\.id) == [kept.id])
    }
}
