import Foundation
import Testing
@testable import HeraldStore
@testable import HeraldPostgres

/// A group of registrations after a group that was all new devices is expected to be all new too: its locks, a
/// check that none of its keys is stored and its insert go with the `COMMIT` in one round trip. A wrong guess
/// writes nothing and the group runs again with its lookups (`RegistrationBatch.expectsAllNew`).
@Suite struct PostgresExpectedNewTests {
    func pending(_ tokens: [String], app: String = "app1", ids: String) -> [PendingRegistration] {
        tokens.enumerated().map { n, token in
            PendingRegistration(appID: app, draft: InstallationDraft(deviceToken: token), newID: "\(ids)\(n)", now: t0, insertable: true)
        }
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
        #expect(recent.expectAllNew)
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
        // A group naming a stored token: rolled back before its insert, and the guess follows what it found.
        let third = pending(["c1", "a1"], ids: "t")
        let wrong = try batch(third, recent)
        #expect(wrong.expectsAllNew)
        await #expect(throws: RegistrationBatch.KeysNotNew.self) { _ = try await run(wrong, store) }
        #expect(!recent.expectAllNew)
        #expect(third.allSatisfy { $0.inserted == nil && $0.updated == nil && !$0.locked })
        #expect(try await store.installationCount(appID: "app1") == 5)
        // Again with its lookups: the new device inserted, the known one updated, together with the COMMIT.
        #expect(try await run(wrong.lookingUpStoredKeys(), store) == (true, 2))
        #expect(third[0].inserted?.deviceToken == "c1" && third[1].updated?.id == "f0")
        #expect(try await store.installationCount(appID: "app1") == 6)
        #expect(try batch(pending(["d1"], ids: "d"), recent).expectsAllNew == false)
    }

    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func onlyAGroupOfOneAppNamingEachKeyOnceIsExpectedNew() async throws {
        let recent = RecentRegistrations()
        recent.record(allNew: true)
        #expect(try batch(pending(["a", "b"], ids: "n"), recent).expectsAllNew)
        #expect(try batch(pending(["a", "a"], ids: "n"), recent).expectsAllNew == false)
        #expect(try batch(pending(["a"], ids: "n") + pending(["b"], app: "app2", ids: "m"), recent).expectsAllNew == false)
        var sameID = pending(["a", "b"], ids: "n")
        sameID = sameID.map { PendingRegistration(appID: $0.appID, draft: InstallationDraft(installationID: "i", deviceToken: $0.draft.deviceToken),
                                                  newID: $0.newID, now: t0, insertable: true) }
        #expect(try batch(sameID, recent).expectsAllNew == false)
        let save = PendingRegistration(appID: "app1", draft: InstallationDraft(deviceToken: "c"), newID: "x", now: t0, insertable: false)
        #expect(try batch(pending(["a"], ids: "n") + [save], recent).expectsAllNew == false)
        // Without a record of recent groups (a batch made alone), nothing is expected.
        let alone = try #require(RegistrationBatch(pending(["a", "b"], ids: "n").map {
            GroupCommit<PostgresConnection>.Write(payload: $0, body: { _ in }, answer: { _ in }) }))
        #expect(!alone.expectsAllNew)
    }

    /// Through the store: waves of concurrent registrations, all new, then half of them known devices coming
    /// back, then new again, and one of an app deleted meanwhile. Every answer says whether it created the
    /// device and names the right installation, whichever way its group was written.
    @Test(.enabled(if: TestPostgres.url != nil, TestPostgres.skipReason))
    func registrationsAnswerTheSameWhetherTheirGroupWasExpectedNewOrNot() async throws {
        let store = try await PostgresStore(url: try await TestPostgres.freshDatabase(), poolSize: 8)
        try await makeApp(store)
        try await makeApp(store, id: "doomed")
        func wave(_ tokens: [String], app: String = "app1") async throws -> [String: (id: String, created: Bool)] {
            try await withThrowingTaskGroup(of: (String, String, Bool).self) { group in
                for token in tokens {
                    group.addTask {
                        let (record, created) = try await store.upsertInstallation(
                            appID: app, draft: InstallationDraft(deviceToken: token), match: .installationIDOrToken,
                            newID: "id-\(token)-\(UUID().uuidString.prefix(8))", now: t0)
                        return (token, record.id, created)
                    }
                }
                var answers: [String: (id: String, created: Bool)] = [:]
                for try await (token, id, created) in group { answers[token] = (id, created) }
                return answers
            }
        }
        let first = try await wave((0..<40).map { "new-\($0)" })
        let second = try await wave((40..<80).map { "new-\($0)" })
        #expect((first.values.map(\.created) + second.values.map(\.created)).allSatisfy { $0 })
        let mixed = try await wave((60..<100).map { "new-\($0)" })   // 60-79 known, 80-99 new
        for n in 60..<100 {
            let answer = try #require(mixed["new-\(n)"])
            #expect(answer.created == (n >= 80))
            if n < 80 { #expect(answer.id == second["new-\(n)"]?.id) }
        }
        let third = try await wave((100..<140).map { "new-\($0)" })
        #expect(third.values.allSatisfy { $0.created })
        #expect(try await store.installationCount(appID: "app1") == 140)
        #expect(try await store.deleteApp(id: "doomed"))
        await #expect(throws: StoreError.notFound) { _ = try await wave(["late"], app: "doomed") }
        _ = try await wave(["after"])
        #expect(try await store.installationCount(appID: "app1") == 141)
    }
}
