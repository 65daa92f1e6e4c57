import Foundation
import Testing
@testable import HeraldStore

/// `importInstallations` must leave what upserting each draft in order leaves, however a store writes a
/// batch (PostgreSQL sends new rows by COPY, whose text format gives tabs, newlines and backslashes a
/// meaning, and the others one by one). Both stores, one app importing and one registering.
@Suite struct StorageBulkImportTests {
    /// Drafts with every field set to text the COPY format (and array literals) must carry unchanged, tags
    /// or none, and some that match an earlier draft of the batch (same installation id, same token).
    static func drafts(_ count: Int, repeating: Bool = true) -> [InstallationDraft] {
        let awkward = ["tab\there", "new\nline", "cr\rhere", "back\\slash", "\\N", "quote\"s", "{brace,comma}", "日本語 ✓", "NULL", ""]
        return (0..<count).map { i in
            let word = awkward[i % awkward.count]
            // Every 7th draft repeats an earlier installation id; every 11th moves an earlier token. Every tenth
            // id carries quotes, a backslash and a comma, which a store's array literal must escape: draft 300
            // (the second batch's first) repeats draft 297's, so the store must find it among the stored rows.
            func iid(_ j: Int) -> String { j % 10 == 7 ? "iid-\(j) \"q\" \\b,{}" : "iid-\(j)" }
            let iid = repeating && i % 7 == 6 ? iid(i - 3) : iid(i)
            let token = repeating && i % 11 == 10 ? String(format: "%064x", i - 5) : String(format: "%064x", i)
            var d = InstallationDraft(installationID: iid, deviceToken: token, environment: i % 2 == 0 ? "sandbox" : "production")
            d.tags = i % 3 == 0 ? nil : ["all", word, "n\(i % 5)"]
            // A tag listed twice is one row: among a few tags, and among many (a store may dedupe those another way).
            if i % 17 == 5 { d.tags = ["all", word, "all", "n\(i % 5)"] }
            if i % 19 == 4 { d.tags = (0..<20).map { "m\($0 % 18)" } }
            d.alias = .some(i % 4 == 0 ? nil : "alias \(word)")
            d.userID = .some("user\t\(i)")
            d.locale = .some("zh-Hans")
            d.timeZone = .some("Asia/Shanghai")
            d.badge = i % 9
            d.appVersion = .some("1.\(i)")
            d.osVersion = .some(word)
            d.deviceModel = .some("iPhone\\\(i)")
            d.properties = "{\"k\":\"\(word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\t", with: "\\t"))\"}"
            if i % 13 == 0 { d.inactive = .init(reason: "Unregistered", at: t0.addingTimeInterval(-Double(i))) }
            if i % 2 == 1 { d.createdAt = t0.addingTimeInterval(-86_400 - Double(i)) }
            return d
        }
    }

    static func everyInstallation(_ store: any HeraldStorage, app: String) async throws -> [InstallationRecord] {
        var out: [InstallationRecord] = []
        while true {
            let page = try await store.installations(appID: app, query: InstallationQuery(afterSeq: out.last?.seq ?? 0, limit: 500))
            out += page
            if page.count < 500 { return out }
        }
    }

    @Test(arguments: StoreKind.available) func importLeavesWhatUpsertingEachInOrderLeaves(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        try await makeApp(store, id: "app2")
        let drafts = Self.drafts(500)
        // Two batches: the second finds rows of the first stored.
        var created = 0, updated = 0
        for (n, part) in [drafts[..<300], drafts[300...]].enumerated() {
            let result = try await store.importInstallations(appID: "app1", drafts: Array(part), newIDs: part.indices.map { "a\(n)-\($0)" }, now: t0)
            created += result.created
            updated += result.updated
        }
        var oneByOne = 0
        for (i, draft) in drafts.enumerated() {
            if try await store.upsertInstallation(appID: "app2", draft: draft, match: .installationIDOrToken, newID: "b-\(i)", now: t0).created {
                oneByOne += 1
            }
        }
        #expect(created == oneByOne)
        #expect(created + updated == drafts.count)

        let imported = try await Self.everyInstallation(store, app: "app1")
        let registered = try await Self.everyInstallation(store, app: "app2")
        #expect(imported.count == registered.count)
        // Same rows in the same (registration) order, field by field; ids, seqs and the app differ by design.
        for (a, b) in zip(imported, registered) {
            var b = b
            b.id = a.id; b.seq = a.seq; b.appID = a.appID
            #expect(a == b)
        }
        // The awkward text came back as it went in.
        let tagged = try #require(imported.first { $0.installationID == "iid-1" })
        #expect(tagged.tags == ["all", "n1", "new\nline"])
        #expect(tagged.alias == "alias new\nline")
        #expect(tagged.userID == "user\t1")
        #expect(try await store.tags(appID: "app1", after: nil, limit: 100).map(\.tag) == store.tags(appID: "app2", after: nil, limit: 100).map(\.tag))
    }

    /// A large batch leaves what upserting each draft in order leaves, in the same (registration) order:
    /// of new installations only, which PostgreSQL checks and writes in two halves on two connections at
    /// once, and mixed (some drafts update), which it writes in order on one.
    @Test(arguments: StoreKind.available, [false, true])
    func aLargeBatchLeavesWhatUpsertingEachLeaves(_ kind: StoreKind, repeating: Bool) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        try await makeApp(store, id: "app2")
        let drafts = Self.drafts(1_500, repeating: repeating)
        let result = try await store.importInstallations(appID: "app1", drafts: drafts, newIDs: drafts.indices.map { "a-\($0)" }, now: t0)
        var oneByOne = 0
        for (i, draft) in drafts.enumerated() {
            if try await store.upsertInstallation(appID: "app2", draft: draft, match: .installationIDOrToken, newID: "b-\(i)", now: t0).created {
                oneByOne += 1
            }
        }
        #expect(result.created == oneByOne && result.created + result.updated == 1_500)
        let imported = try await Self.everyInstallation(store, app: "app1")
        let registered = try await Self.everyInstallation(store, app: "app2")
        #expect(imported.count == registered.count && imported.count == (repeating ? oneByOne : 1_500))
        if !repeating { #expect(imported.map(\.id) == drafts.indices.map { "a-\($0)" }, "in the file's order") }
        for (a, b) in zip(imported, registered) {
            var b = b
            b.id = a.id; b.seq = a.seq; b.appID = a.appID
            #expect(a == b)
        }
    }

    /// A batch is stored whole or not at all, also when PostgreSQL writes it in two halves: a row the
    /// database refuses (text holding a NUL byte, which PostgreSQL's text cannot) in either half leaves
    /// nothing of the batch.
    @Test(arguments: StoreKind.available) func aLargeBatchIsStoredWholeOrNotAtAll(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        for (round, refused) in [100, 1_400].enumerated() {   // in the first half, then in the second
            var drafts = Self.drafts(1_500, repeating: false)
            for i in drafts.indices { drafts[i].deviceToken = String(format: "%064x", 1_000_000 * (round + 1) + i) }
            for i in drafts.indices { drafts[i].installationID = "round\(round)-\(i)" }
            drafts[refused].alias = .some("a NUL \u{0} here")
            let before = try await store.installationCount(appID: "app1")
            let result = try? await store.importInstallations(appID: "app1", drafts: drafts, newIDs: drafts.indices.map { "r\(round)-\($0)" }, now: t0)
            let after = try await store.installationCount(appID: "app1")
            #expect(after == before + (result == nil ? 0 : 1_500), "whole or nothing (round \(round))")
            if kind == .postgres { #expect(result == nil, "PostgreSQL refuses the NUL (round \(round))") }
            if kind == .sqlite {   // which takes the NUL and what follows it, bound from the batch's prepared rows
                let stored = try await store.installation(appID: "app1", id: "r\(round)-\(refused)")
                #expect(stored?.alias == "a NUL \u{0} here")
            }
        }
    }
}
