import Foundation
import Testing
@testable import HeraldStore

/// The delivery journal (`journalAccepted`, `journaledSeqs`) on every store: seqs APNs accepted of pages
/// not yet written, found again beyond the cursor, dropped once a page write passes them, counting nothing,
/// and written only while the fan-out is this node's.
@Suite struct DeliveryJournalConformanceTests {
    @Test(arguments: StoreKind.available) func acceptedSeqsAreJournaledBeyondTheCursorWhileTheFanOutIsThisNodes(_ kind: StoreKind) async throws {
        let fresh = try await kind.makeStore()
        let a = try await fresh.openAsNode("node-a"), b = try await fresh.openAsNode("node-b")
        try await makeApp(a)
        for i in 0..<6 { _ = try await register(a, iid: "i-\(i)", token: "t\(i)") }
        _ = try await a.insertPush(PushRecord(id: "p1", appID: "app1", idempotencyKey: nil, request: "{}", status: .queued,
                                              createdAt: t0, sendAt: nil, expiresAt: nil), idempotentSince: t0)
        if a.isShared { #expect(try await a.claimFanOuts(limit: 1, now: t0) == ["p1"]) }
        let members = try await a.audience(appID: "app1", selector: AudienceSelector(source: .all), after: 0, limit: 10)
        let seqs = members.map(\.seq)
        let planned = members.map {
            PlannedDelivery(seq: $0.seq, installationID: $0.id, deviceToken: $0.deviceToken, environment: $0.environment, variant: "", notBefore: t0)
        }

        // Page one is members 0-2, page two 3-5. Answers come in any order, one twice, before either page is written.
        #expect(try await a.journalAccepted(pushID: "p1", seqs: [seqs[2], seqs[0], seqs[2]]))
        #expect(try await a.journalAccepted(pushID: "p1", seqs: [seqs[4]]))
        #expect(try await a.journalAccepted(pushID: "p1", seqs: []))
        #expect(try await a.journaledSeqs(pushID: "p1", after: 0, through: seqs[2]) == [seqs[0], seqs[2]])
        #expect(try await a.journaledSeqs(pushID: "p1", after: seqs[2], through: seqs[5]) == [seqs[4]])
        #expect(try await b.journaledSeqs(pushID: "p1", after: 0, through: seqs[5]) == [seqs[0], seqs[2], seqs[4]], "any node reads it")
        #expect(try await a.journaledSeqs(pushID: "p2", after: 0, through: seqs[5]).isEmpty)
        #expect(try await !a.journalAccepted(pushID: "gone", seqs: [seqs[0]]), "no push, nothing journaled")
        // A hint beside the pages: no counter moves and no delivery row is written.
        var push = try #require(try await a.push(id: "p1"))
        #expect(push.counts.targeted == 0 && push.counts.sent == 0 && push.fanoutCursor == 0)
        #expect(try await a.deliveries(pushID: "p1", state: nil, afterID: 0, limit: 10).isEmpty)

        // Page one is written (the engine writes its journaled members as sent): the cursor passes its entries,
        // and answers of it that come late are dropped.
        #expect(try await a.recordPage(pushID: "p1", after: 0, cursor: seqs[2], done: false, badge: nil,
                                       rows: planned[0...2].map { PageDelivery(planned: $0, outcome: $0.seq == seqs[1] ? nil : .sent(status: 200)) }, now: t0))
        #expect(try await a.journalAccepted(pushID: "p1", seqs: [seqs[1], seqs[5]]))
        #expect(try await a.journaledSeqs(pushID: "p1", after: 0, through: seqs[5]) == [seqs[4], seqs[5]])
        push = try #require(try await a.push(id: "p1"))
        #expect(push.counts.targeted == 3 && push.counts.sent == 2, "counted once, by the page")

        // On a store shared by nodes, only the node holding the fan-out journals it: one that lost it (its work
        // given back, or rescued) is refused, so a late commit of it never lands after the fan-out moved on.
        var holder = a
        if a.isShared {
            #expect(try await !b.journalAccepted(pushID: "p1", seqs: [seqs[3]]), "b does not hold the fan-out")
            _ = try await a.releaseNode(now: t0)
            #expect(try await !a.journalAccepted(pushID: "p1", seqs: [seqs[3]]), "a no longer holds the fan-out")
            #expect(try await b.claimFanOuts(limit: 1, now: t0) == ["p1"])
            #expect(try await b.journalAccepted(pushID: "p1", seqs: [seqs[3]]))
            #expect(try await !a.journalAccepted(pushID: "p1", seqs: [seqs[3]]), "b holds it now")
            holder = b
        } else {
            #expect(try await a.journalAccepted(pushID: "p1", seqs: [seqs[3]]), "one node per file: its fan-outs are its own")
        }
        #expect(try await holder.journaledSeqs(pushID: "p1", after: seqs[2], through: seqs[5]) == [seqs[3], seqs[4], seqs[5]])

        // Once the fan-out is done there is nothing left to journal.
        #expect(try await holder.recordPage(pushID: "p1", after: seqs[2], cursor: seqs[5], done: true, badge: nil,
                                            rows: planned[3...5].map { PageDelivery(planned: $0, outcome: .sent(status: 200)) }, now: t0))
        #expect(try await !holder.journalAccepted(pushID: "p1", seqs: [seqs[5]]))
        push = try #require(try await holder.push(id: "p1"))
        #expect(push.counts.targeted == 6 && push.counts.sent == 5)
    }

    @Test func journaledSeqsRoundTripThroughTheirCompactForm() throws {
        let seqs: [Int64] = [1, 2, 3, 130, 131, 20_000, 1 << 40, (1 << 40) + 1, Int64.max]
        let bytes = JournaledSeqs.encode(seqs)
        #expect(JournaledSeqs.decode(bytes) == seqs)
        #expect(JournaledSeqs.encode([5, 6, 7, 8]).count == 4, "consecutive seqs take a byte each")
        let entry = try #require(JournaledSeqs.entry([9, 3, 7, 3, 12], beyond: 3))
        #expect(entry.first == 7 && entry.last == 12 && JournaledSeqs.decode(entry.bytes) == [7, 9, 12])
        #expect(JournaledSeqs.entry([1, 2], beyond: 2) == nil)
        #expect(JournaledSeqs.merged([JournaledSeqs.encode([1, 4, 9]), JournaledSeqs.encode([4, 5])], after: 1, through: 5) == [4, 5])
    }
}
