import Foundation
import Testing
@testable import HeraldStore

/// Registrations share transactions (group commit) and imports insert new rows many at a time; neither may
/// change what a caller sees: each write succeeds or fails alone, and an import ends as upserting each
/// draft in order would.
extension StorageConformanceTests {
    @Test(arguments: StoreKind.available) func concurrentRegistrationsEachCommitAndAFailingOneFailsAlone(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        let taken = try await register(store, iid: "taken", token: "00")
        let other = try await register(store, iid: "other", token: "01")
        let results = await withTaskGroup(of: (Int, Result<InstallationRecord, Error>).self) { group in
            for i in 0..<200 {
                group.addTask {
                    if i == 100 {
                        // Renaming `other` to an installation id `taken` has: a conflict, in the middle of the burst.
                        let draft = InstallationDraft(installationID: "taken")
                        return (i, await outcome { try await store.upsertInstallation(appID: "app1", draft: draft, match: .existing(other.id),
                                                                                      newID: "unused", now: t0).0 })
                    }
                    return (i, await outcome { try await register(store, iid: "i-\(i)", token: String(format: "%04x", i + 16), tags: ["t\(i % 3)"]) })
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(throws: StoreError.self) { try results[100]!.get() }
        var seqs = Set<Int64>()
        for i in 0..<200 where i != 100 {
            let record = try results[i]!.get()
            #expect(record.installationID == "i-\(i)" && record.tags == ["t\(i % 3)"])
            seqs.insert(record.seq)
        }
        #expect(seqs.count == 199)
        // Each answer is the write as it committed (a group with a failing write runs again; the first run's
        // rows were rolled back): the stored row has the answered seq.
        for i in stride(from: 0, to: 200, by: 7) where i != 100 {
            let answered = try results[i]!.get()
            #expect(try await store.installation(appID: "app1", id: answered.id)?.seq == answered.seq)
        }
        #expect(try await store.installationCount(appID: "app1") == 201)
        #expect(try await store.installation(appID: "app1", id: other.id)?.installationID == "other")
        #expect(try await store.installation(appID: "app1", id: taken.id)?.installationID == "taken")
    }

    @Test(arguments: StoreKind.available) func importEndsAsUpsertingEachDraftInOrder(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        let stored = try await register(store, iid: "old", token: "aa", tags: ["old"])
        var fresh = InstallationDraft(installationID: "i-1", deviceToken: "bb")
        fresh.tags = ["x", "y", "x"]
        fresh.badge = 3
        var freshAgain = InstallationDraft(installationID: "i-1", deviceToken: "cc")   // same batch: an update
        freshAgain.badge = 4
        var tokenOfOld = InstallationDraft(installationID: "i-2", deviceToken: "aa")   // adopts the stored row
        tokenOfOld.tags = ["new"]
        let tokenOnly = InstallationDraft(deviceToken: "dd")
        let (created, updated) = try await store.importInstallations(appID: "app1", drafts: [fresh, freshAgain, tokenOfOld, tokenOnly],
                                                                     newIDs: ["n1", "n2", "n3", "n4"], now: t0)
        #expect(created == 2 && updated == 2)
        let one = try #require(try await store.installation(appID: "app1", id: "n1"))
        #expect(one.installationID == "i-1" && one.deviceToken == "cc" && one.badge == 4 && one.tags == ["x", "y"])
        let adopted = try #require(try await store.installation(appID: "app1", id: stored.id))
        #expect(adopted.installationID == "i-2" && adopted.tags == ["new"])
        let four = try #require(try await store.installation(appID: "app1", id: "n4"))
        #expect(four.installationID == "n4" && four.deviceToken == "dd" && four.active)
        #expect(try await store.installationCount(appID: "app1") == 3)
        // The tag index walk (`tagsAny` of one tag) sees the imported rows.
        let members = try await store.audience(appID: "app1", selector: AudienceSelector(source: .all, tagsAny: ["x"]), after: 0, limit: 10)
        #expect(members.map(\.id) == ["n1"])
    }
}

private func outcome(_ body: () async throws -> InstallationRecord) async -> Result<InstallationRecord, Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}
