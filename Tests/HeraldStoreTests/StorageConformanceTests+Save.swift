import Foundation
import Synchronization
import Testing
@testable import HeraldStore

/// `saveInstallation`: a save built from the installation it changes (LeanCloud's), found and written in one
/// transaction. It finds what a LeanCloud client means (ids in order, then the active holder of the token),
/// and concurrent saves of one installation each start from the other's result.
extension StorageConformanceTests {
    /// A save whose merge adds `add` to the stored badge and `tag` to the stored tags, and writes `draft` as it
    /// is when nothing is found; `draft` carries the keys.
    func incrementing(_ draft: InstallationDraft, ids: [String] = [], activeToken: String? = nil, mustExist: Bool = false,
                      add: Int = 1, tag: String? = nil) -> InstallationSave {
        InstallationSave(ids: ids, activeToken: activeToken, mustExist: mustExist, installationID: draft.installationID,
                         deviceToken: draft.deviceToken) { found in
            guard let found else { return draft }
            var merged = draft
            merged.badge = found.badge + add
            if let tag { merged.tags = Array(Set(found.tags + [tag])) }
            return merged
        }
    }

    @Test(arguments: StoreKind.available) func aSaveFindsByIDThenInstallationIDThenTheActiveToken(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        try await makeApp(store, id: "app2")
        let first = try await register(store, iid: "i-1", token: "aa", tags: ["news", "sports"])
        let second = try await register(store, iid: "i-2", token: "bb")

        // By the active token: the merge sees the stored row with its tags.
        let tagsSeen = Mutex<[String]>([])
        let byToken = InstallationSave(ids: [], activeToken: "aa", mustExist: false, installationID: nil, deviceToken: "aa") { found in
            tagsSeen.withLock { $0 = found?.tags ?? [] }
            var merged = InstallationDraft()
            merged.badge = 7
            return merged
        }
        let (saved, created) = try await store.saveInstallation(appID: "app1", byToken, newID: "unused", now: t0)
        #expect(!created && saved.id == first.id && saved.badge == 7 && saved.deviceToken == "aa")
        #expect(tagsSeen.withLock { $0 } == ["news", "sports"])

        // Ids come first, in order, each as Herald's id or installation id; a token of another row does not win.
        let byIDs = incrementing(InstallationDraft(deviceToken: "aa"), ids: ["nobody", "i-2"], activeToken: "aa")
        let (moved, _) = try await store.saveInstallation(appID: "app1", byIDs, newID: "unused", now: t0)
        #expect(moved.id == second.id && moved.deviceToken == "aa", "found by installation id; the token moves to it")
        #expect(try await store.installation(appID: "app1", id: first.id)?.active == false, "the old holder is Replaced")

        // Another app's installation is not found: the save registers a new one there.
        let (elsewhere, createdElsewhere) = try await store.saveInstallation(appID: "app2", incrementing(InstallationDraft(deviceToken: "aa"), ids: [second.id], activeToken: "aa"),
                                                                           newID: "n-app2", now: t0)
        #expect(createdElsewhere && elsewhere.id == "n-app2" && elsewhere.badge == 0, "nothing found: the draft as is")
    }

    @Test(arguments: StoreKind.available) func aSaveThatFindsNothingRegistersRevivesOrFails(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        let retired = try await register(store, iid: "i-1", token: "aa", tags: ["old"])
        var retire = InstallationDraft(installationID: "i-1", deviceToken: "aa")
        retire.inactive = .init(reason: "Unregistered", at: t0)
        _ = try await store.upsertInstallation(appID: "app1", draft: retire, match: .existing(retired.id), newID: "unused", now: t0)

        // An inactive row is not found by its token, so the merge does not start from it; registering the
        // draft adopts and revives it.
        var draft = InstallationDraft(deviceToken: "aa")
        draft.tags = ["fresh"]
        let (revived, created) = try await store.saveInstallation(appID: "app1", incrementing(draft, activeToken: "aa", add: 5, tag: "merged"),
                                                                 newID: "unused", now: t0)
        #expect(!created && revived.id == retired.id && revived.active && revived.tags == ["fresh"] && revived.badge == 0)

        // A save naming one installation, or a draft with no key, never creates one.
        await #expect(throws: StoreError.notFound) {
            try await store.saveInstallation(appID: "app1", incrementing(InstallationDraft(deviceToken: "bb"), ids: ["nobody"], mustExist: true),
                                             newID: "unused", now: t0)
        }
        await #expect(throws: StoreError.notFound) {
            try await store.saveInstallation(appID: "app1", incrementing(InstallationDraft(), ids: ["nobody"]), newID: "unused", now: t0)
        }
        #expect(try await store.installationCount(appID: "app1") == 1)

        // Found by id, the keys stay the draft's whatever the merge returns.
        let renaming = InstallationSave(ids: [retired.id], activeToken: nil, mustExist: true, installationID: nil, deviceToken: "aa") { _ in
            InstallationDraft(installationID: "sneaky", deviceToken: "cc")
        }
        let (kept, _) = try await store.saveInstallation(appID: "app1", renaming, newID: "unused", now: t0)
        #expect(kept.installationID == "i-1" && kept.deviceToken == "aa")
    }

    /// LeanCloud's `Increment` and `AddUnique` are atomic on its server: saves racing on one installation must
    /// not both start from the same badge or tags (a read before the write lost all but one of each race).
    @Test(arguments: StoreKind.available) func concurrentSavesOfOneInstallationEachMergeIntoTheOthers(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        let device = try await register(store, iid: "i-1", token: "aa")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<40 {
                group.addTask {
                    // Half find it by token, half by id, as an app's save and a backend's update would.
                    let save = i % 2 == 0
                        ? incrementing(InstallationDraft(deviceToken: "aa"), activeToken: "aa", tag: "t\(i)")
                        : incrementing(InstallationDraft(), ids: [device.id], mustExist: true, tag: "t\(i)")
                    _ = try await store.saveInstallation(appID: "app1", save, newID: UUID().uuidString, now: t0)
                }
            }
            try await group.waitForAll()
        }
        let stored = try #require(try await store.installation(appID: "app1", id: device.id))
        #expect(stored.badge == 40)
        #expect(stored.tags.count == 40)
        #expect(try await store.installationCount(appID: "app1") == 1)
    }
}
