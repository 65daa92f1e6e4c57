import Foundation
import Testing
@testable import HeraldStore
@testable import HeraldPostgres

/// After an app's group of registrations that was all new devices, its next group is expected to be all new
/// too: its locks, and its insert on condition that none of its keys is stored, go with the `COMMIT` in one
/// round trip. A wrong guess writes nothing and the group runs again with its lookups
/// (`RegistrationBatch.expectsAllNew`).
@Suite struct PostgresExpectedNewTests {
    func pending(_ drafts: [InstallationDraft], app: String = "app1", ids: String) -> [PendingRegistration] {
        drafts.enumerated().map { n, draft in PendingRegistration(appID: app, draft: draft, newID: "\(ids)\(n)", now: t0, insertable: true) }
    }

    func pending(_ tokens: [String], app: String = "app1", ids: String) -> [PendingRegistration] {
        pending(tokens.map { InstallationDraft(deviceToken: $0) }, app: app, ids: ids)
    }

    func batch(_ registrations: [PendingRegistration], _ recent: RecentRegistrations) throws -> RegistrationBatch {
        try #require(RegistrationBatch(registrations.map { GroupCommit<PostgresConnection>.Write(payload: $0, body: { _ in }, answer: { _ in }) },
                                       recent: recent))
    }

    /// Runs the batch in a transaction: whether it committed, and its round trips.
    func run(_ batch: RegistrationBatch, _ store: PostgresStore) async throws -> (committed: Bool, roundTrips: Int) {
        try await store.database.write { db in
            let before = db.roundTrips
            let committed = try batch.write(db)
            return (committed, db.roundTrips - before)
        }
    }

    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func aGroupAfterAnAllNewGroupIsOneRoundTripAndAWrongGuessWritesNothing() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 2)
        try await makeApp(store)
        let recent = RecentRegistrations()
        // Nothing expected yet: the lookups' round trip, then the insert with the COMMIT.
        let first = try batch(pending(["a1", "a2"], ids: "f"), recent)
        #expect(!first.expectsAllNew)
        #expect(try await run(first, store) == (true, 2))
        #expect(recent.expectAllNew(appID: "app1") && !recent.expectAllNew(appID: "app2"))
        // The next group of new devices: one round trip, every device stored and answered with its seq.
        let second = pending(["b1", "b2", "b3"], ids: "s")
        let expected = try batch(second, recent)
        #expect(expected.expectsAllNew)
        #expect(try await run(expected, store) == (true, 1))
        for registration in second {
            let answered = try #require(registration.inserted)
            let stored = try #require(try await store.installation(appID: "app1", id: answered.id))
            #expect(stored.seq == answered.seq && stored.deviceToken == registration.draft.deviceToken)
        }
        #expect(try await store.installationCount(appID: "app1") == 5)
        #expect(recent.guesses == (1, 0))
        // A group naming a stored token: nothing written, and the guess follows what it found.
        let third = pending(["c1", "a1"], ids: "t")
        let wrong = try batch(third, recent)
        #expect(wrong.expectsAllNew)
        await #expect(throws: RegistrationBatch.KeysNotNew.self) { _ = try await run(wrong, store) }
        #expect(!recent.expectAllNew(appID: "app1") && recent.guesses == (2, 1))
        #expect(third.allSatisfy { $0.inserted == nil && $0.updated == nil && !$0.locked && !$0.appGone })
        #expect(try await store.installationCount(appID: "app1") == 5)
        // Again with its lookups: the new device inserted, the known one updated, together with the COMMIT.
        #expect(try await run(wrong.lookingUpStoredKeys(), store) == (true, 2))
        #expect(third[0].inserted?.deviceToken == "c1" && third[1].updated?.id == "f0")
        #expect(try await store.installationCount(appID: "app1") == 6)
        #expect(try batch(pending(["d1"], ids: "d"), recent).expectsAllNew == false)
    }

    /// Every kind of stored key stops a group expected new, with nothing written: an installation id, a new
    /// installation id with a stored token (a reinstall), the token of an inactive installation. And a group
    /// whose app was deleted stores nothing and answers "gone".
    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func anyStoredKeyStopsAGroupExpectedNew() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 2)
        try await makeApp(store)
        try await makeApp(store, id: "doomed")
        _ = try await register(store, iid: "i-1", token: "t1")
        var retired = InstallationDraft(installationID: "i-2", deviceToken: "t2")
        retired.inactive = .init(reason: "Unregistered", at: t0)
        _ = try await store.importInstallations(appID: "app1", drafts: [retired], newIDs: ["i-2"], now: t0)
        #expect(try await store.installation(appID: "app1", id: "i-2")?.active == false)
        let recent = RecentRegistrations()
        let cases: [(String, InstallationDraft)] = [
            ("a stored installation id, a new token", InstallationDraft(installationID: "i-1", deviceToken: "new-1")),
            ("a new installation id, a stored token", InstallationDraft(installationID: "i-new", deviceToken: "t1")),
            ("an inactive installation's token", InstallationDraft(deviceToken: "t2")),
            ("a stored installation id alone", InstallationDraft(installationID: "i-2")),
        ]
        for (n, (what, draft)) in cases.enumerated() {
            recent.record(appIDs: ["app1"], allNew: true)
            let group = pending([InstallationDraft(installationID: "fresh-\(n)", deviceToken: "fresh-\(n)"), draft], ids: "c\(n)-")
            let expected = try batch(group, recent)
            #expect(expected.expectsAllNew, "\(what)")
            await #expect(throws: RegistrationBatch.KeysNotNew.self, "\(what)") { _ = try await run(expected, store) }
            #expect(group.allSatisfy { $0.inserted == nil }, "\(what)")
        }
        #expect(try await store.installationCount(appID: "app1") == 2)
        recent.record(appIDs: ["doomed"], allNew: true)
        #expect(try await store.deleteApp(id: "doomed"))
        let late = pending(["late"], app: "doomed", ids: "l")
        #expect(try await run(try batch(late, recent), store) == (true, 1))
        #expect(late[0].appGone && late[0].inserted == nil)
    }

    @Test func onlyAGroupOfOneAppNamingEachKeyOnceIsExpectedNew() throws {
        let recent = RecentRegistrations()
        recent.record(appIDs: ["app1", "app2"], allNew: true)
        #expect(try batch(pending(["a", "b"], ids: "n"), recent).expectsAllNew)
        #expect(try batch(pending(["a", "a"], ids: "n"), recent).expectsAllNew == false)
        #expect(try batch(pending(["a"], ids: "n") + pending(["b"], app: "app2", ids: "m"), recent).expectsAllNew == false)
        let sameID = pending([InstallationDraft(installationID: "i", deviceToken: "a"), InstallationDraft(installationID: "i", deviceToken: "b")], ids: "n")
        #expect(try batch(sameID, recent).expectsAllNew == false)
        let save = PendingRegistration(appID: "app1", draft: InstallationDraft(deviceToken: "c"), newID: "x", now: t0, insertable: false)
        #expect(try batch(pending(["a"], ids: "n") + [save], recent).expectsAllNew == false)
        // Per app: another app's known devices do not change what is expected of this one.
        recent.record(appIDs: ["app2"], allNew: false)
        #expect(try batch(pending(["a"], ids: "n"), recent).expectsAllNew)
        #expect(try batch(pending(["a"], app: "app2", ids: "n"), recent).expectsAllNew == false)
        // Without a record of recent groups (a batch made alone), nothing is expected.
        let alone = try #require(RegistrationBatch(pending(["a", "b"], ids: "n").map {
            GroupCommit<PostgresConnection>.Write(payload: $0, body: { _ in }, answer: { _ in }) }))
        #expect(!alone.expectsAllNew)
    }

    /// Through the store, two lanes: waves of concurrent registrations, all new, then half of them known devices
    /// coming back, then every token twice at once, then new again. Every answer says whether it created the
    /// device and names the right installation, whichever way its group was written, and both ways ran.
    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func registrationsAnswerTheSameWhetherTheirGroupWasExpectedNewOrNot() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 8)
        try await makeApp(store)
        func wave(_ tokens: [String]) async throws -> [(token: String, id: String, created: Bool)] {
            try await withThrowingTaskGroup(of: (String, String, Bool).self) { group in
                for token in tokens {
                    group.addTask {
                        let (record, created) = try await store.upsertInstallation(
                            appID: "app1", draft: InstallationDraft(deviceToken: token), match: .installationIDOrToken,
                            newID: "id-\(UUID().uuidString)", now: t0)
                        return (token, record.id, created)
                    }
                }
                var answers: [(token: String, id: String, created: Bool)] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
        }
        let first = try await wave((0..<40).map { "new-\($0)" })
        let second = try await wave((40..<80).map { "new-\($0)" })
        #expect((first + second).allSatisfy { $0.created })
        let ids = Dictionary(uniqueKeysWithValues: (first + second).map { ($0.token, $0.id) })
        for n in 0..<3 {
            let mixed = try await wave((60..<100).map { "new-\($0)" } + (0..<5).map { "new-\($0)" })
            for answer in mixed {
                let number = Int(answer.token.dropFirst(4))!
                let known = number < 80 || n > 0
                #expect(answer.created == !known, "\(answer.token)")
                if number < 80 { #expect(answer.id == ids[answer.token]) }
            }
            _ = try await wave((200 + 40 * n..<240 + 40 * n).map { "new-\($0)" })   // new again: the guess comes back
        }
        // Each token twice at once: one registration creates it, the other finds it, both name one installation.
        let twice = try await wave((0..<30).flatMap { ["twice-\($0)", "twice-\($0)"] })
        for (token, answers) in Dictionary(grouping: twice, by: \.token) {
            #expect(answers.filter(\.created).count == 1 && Set(answers.map(\.id)).count == 1, "\(token): \(answers)")
        }
        #expect(try await store.installationCount(appID: "app1") == 100 + 120 + 30)
        let guesses = store.recentRegistrations.guesses
        #expect(guesses.expected > guesses.wrong && guesses.wrong > 0, "both ways ran: \(guesses)")
    }
}
