import Foundation
import Testing
import HeraldStore
@testable import HeraldServer

/// Pushes at the service level: a `PushInput` in, an accepted push, a dry run, a report or `ServiceError` out.
@Suite struct PushesServiceTests {
    func input(_ document: JSON, now: Date = start) throws -> PushInput { try PushInput(document.objectValue!, now: now) }

    @Test func aPushIsStoredOnceAndDelivered() async throws {
        let t = try await TestService()
        let app = try await t.serviceApp()
        let installation = try await t.serviceRegister(app.id, "i-1", token: token(1))
        let pushes = t.services.pushes
        let document: JSON = ["target": ["all": true], "content": ["alert": "Hi"], "idempotencyKey": "k1"]
        let accepted = try await pushes.create(appID: app.id, try input(document))
        #expect(accepted.created && accepted.push.push.status == .queued && accepted.push.push.createdAt == start && accepted.unresolved.isEmpty)
        let replay = try await pushes.create(appID: app.id, try input(document))
        #expect(!replay.created && replay.push.push.id == accepted.push.push.id)
        do {
            _ = try await pushes.create(appID: app.id, try input(["target": ["all": true], "content": ["alert": "Other"], "idempotencyKey": "k1"]))
            Issue.record("a reused idempotency key was accepted for another push")
        } catch let e as ServiceError {
            #expect(e.kind == .conflict && e.code == "idempotency_conflict" && e.field == "idempotencyKey")
        }

        try await t.deliver()
        let report = try await pushes.get(appID: app.id, id: accepted.push.push.id, deliveries: .init())
        #expect(report.push.status == .done && report.push.counts.sent == 1 && report.pending == 0)
        let delivery = try #require(report.deliveries?.items.first)
        #expect(delivery.record.installationID == installation.id && delivery.apnsID == t.transport.notifications.first?.apnsID)
        #expect(try await pushes.list(appID: app.id).map(\.push.id) == [accepted.push.push.id])
    }

    /// A push's deliveries are indexed by its id first: ids made later sort later, so each new push's rows
    /// go to the end of that index rather than into the middle of an earlier push's.
    @Test func pushIDsAreTimeOrderedUUIDs() async throws {
        let t = try await TestService()
        let app = try await t.serviceApp()
        var ids: [String] = []
        for i in 0..<20 {
            ids.append(try await t.services.pushes.create(appID: app.id, try input(["target": ["all": true], "content": ["alert": .string("\(i)")]])).push.push.id)
        }
        #expect(ids == ids.sorted(), "later pushes sort later")
        for id in ids {
            let uuid = try #require(UUID(uuidString: id))
            #expect(uuid.uuidString.lowercased() == id && withUnsafeBytes(of: uuid.uuid) { $0[6] >> 4 } == 7, "\(id): a lowercase UUID version 7")
        }
    }

    @Test func aDryRunSizesTheAudienceAndStoresNothing() async throws {
        let t = try await TestService()
        let app = try await t.serviceApp()
        try await t.serviceRegister(app.id, "i-1", token: token(1), tags: ["news"])
        try await t.serviceRegister(app.id, "i-2", token: token(2))
        let run = try await t.services.pushes.dryRun(appID: app.id, try input([
            "target": ["tokens": [.string(token(1)), .string(token(9))]], "content": ["alert": "Hi"], "dryRun": true,
        ]))
        #expect(run.audience == 1 && run.unresolved == [token(9)] && run.environments == ["production": 1])
        #expect(run.pushType == .alert && run.priority == 10 && run.payloadBytes > 0)
        #expect(try await t.services.pushes.list(appID: app.id).isEmpty)
    }

    @Test func whatAPushNeedsBeyondItsFieldsIsCheckedBeforeStoring() async throws {
        let t = try await TestService()
        let app = try await t.serviceApp(topic: nil)
        let pushes = t.services.pushes
        do {
            _ = try await pushes.create(appID: app.id, try input(["target": ["all": true], "content": ["alert": "Hi"]]))
            Issue.record("accepted a push without a topic")
        } catch let e as ServiceError {
            #expect(e.kind == .invalid && e.code == "missing_topic" && e.field == "options.topic")
        }
        do {
            let big = String(repeating: "x", count: 5_000)
            _ = try await pushes.create(appID: app.id, try input(["target": ["all": true], "content": ["alert": .string(big)], "options": ["topic": "t"]]))
            Issue.record("accepted a payload over the limit")
        } catch let e as ServiceError {
            #expect(e.code == "payload_too_large" && e.field == "content")
        }
        await #expect(throws: ServiceError.notFound("App app_missing")) {
            try await pushes.create(appID: "app_missing", try input(["target": ["all": true], "content": ["alert": "Hi"]]))
        }
        #expect(throws: ServiceError.missing("target")) { try input(["content": ["alert": "Hi"]]) }
        #expect(try await pushes.list(appID: app.id).isEmpty)
    }

    @Test func aScheduledPushWaitsForTheClockAndCanBeCancelledOnce() async throws {
        let t = try await TestService()
        let app = try await t.serviceApp()
        try await t.serviceRegister(app.id, "i-1", token: token(1))
        let pushes = t.services.pushes
        let accepted = try await pushes.create(appID: app.id, try input([
            "target": ["all": true], "content": ["alert": "Later"], "options": ["sendAt": "2027-01-15T09:00:00Z"],
        ]))
        #expect(accepted.push.push.status == .scheduled)
        #expect(try await pushes.list(appID: app.id, status: .scheduled).map(\.push.id) == [accepted.push.push.id])
        let cancelled = try await pushes.cancel(appID: app.id, id: accepted.push.push.id)
        #expect(cancelled.push.status == .cancelled)
        do {
            _ = try await pushes.cancel(appID: app.id, id: accepted.push.push.id)
            Issue.record("cancelled a cancelled push")
        } catch let e as ServiceError {
            #expect(e.kind == .conflict && e.code == "push_finished")
        }
        await #expect(throws: PushesService.notFound("nope")) { try await pushes.cancel(appID: app.id, id: "nope") }
        await #expect(throws: PushesService.notFound("nope")) { try await pushes.get(appID: app.id, id: "nope") }
        t.clock.advance(by: 7_200)
        try await t.deliver()
        #expect(t.transport.notifications.isEmpty)
    }
}
