import Foundation
import Testing
import HeraldStore
@testable import HeraldServer

/// The push API reuses an app it read less than `AppRecordCache.window` seconds ago: what a caller notices
/// is how soon a change to the app (its topic, its deletion) reaches the pushes that follow.
@Suite struct AppRecordCacheTests {
    private func topic(_ t: TestService, _ app: TestService.App) async -> String? {
        let answer = await t.call("POST", "/v1/pushes", key: app.master,
                                  json: ["target": ["all": true], "content": ["alert": "x"], "dryRun": true])
        return answer.body["headers"]?["apns-topic"]?.stringValue
    }

    @Test func aTopicChangedOnThisNodeReachesTheVeryNextPush() async throws {
        let t = try await TestService()
        let app = try await t.createApp(topic: "com.example.old")
        #expect(await topic(t, app) == "com.example.old")
        #expect(await t.call("PATCH", "/v1/apps/\(app.id)", key: app.master, json: ["topic": "com.example.new"]).status == 200)
        #expect(await topic(t, app) == "com.example.new", "no time passed, and the push does not see the old topic")
    }

    @Test func aTopicChangedOnAnotherNodeIsSeenOnceTheWindowHasPassed() async throws {
        let a = try await TestService()
        let app = try await a.createApp(topic: "com.example.old")
        #expect(await topic(a, app) == "com.example.old")
        let b = try await TestService(directory: a.directory, clock: a.clock)
        #expect(await b.call("PATCH", "/v1/apps/\(app.id)", key: app.master, json: ["topic": "com.example.new"]).status == 200)
        #expect(await topic(b, app) == "com.example.new")
        #expect(await topic(a, app) == "com.example.old", "this node was not told: it keeps its read for the window")
        a.clock.advance(by: AppRecordCache.window)
        #expect(await topic(a, app) == "com.example.new")
    }

    @Test func aReadUnderWayWhileTheAppChangesIsNotRemembered() async throws {
        let cache = AppRecordCache()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let old = AppRecord(id: "app_1", name: "Demo", topic: "com.example.old", defaultTimeZone: "UTC", rateLimit: nil, createdAt: now, updatedAt: now)
        var new = old
        new.topic = "com.example.new"
        // The update commits (and forgets the app) while this read is on its way back with the old record.
        let read = try await cache.app(id: "app_1", now: now) {
            cache.forget(id: "app_1")
            return old
        }
        #expect(read?.topic == "com.example.old")
        let next = try await cache.app(id: "app_1", now: now) { new }
        #expect(next?.topic == "com.example.new", "the old record was not kept")
        let reused = try await cache.app(id: "app_1", now: now.addingTimeInterval(1)) { old }
        #expect(reused?.topic == "com.example.new", "within the window the read is reused")
        #expect(try await cache.app(id: "missing", now: now) { nil } == nil)
    }
}

extension AppRecordCacheTests {
    @Test func aPushToAnAppDeletedOnAnotherNodeMomentsAgoIsRefusedAndNothingIsStored() async throws {
        let a = try await TestService()
        let app = try await a.createApp(topic: "com.example.demo")
        #expect(await a.call("POST", "/v1/pushes", key: app.master,
                             json: ["target": ["all": true], "content": ["alert": "x"], "dryRun": true]).status == 200)
        let b = try await TestService(directory: a.directory, clock: a.clock)
        #expect(await b.call("DELETE", "/v1/apps/\(app.id)", key: testAdminKey).status == 204)
        // Node a still trusts the key and the app for up to 2 s; the store is the judge of whether the app exists.
        let late = await a.call("POST", "/v1/pushes", key: app.master, json: ["target": ["all": true], "content": ["alert": "x"]])
        #expect(late.status == 404, "\(late.status) \(late.text)")
        #expect(try await a.service.store.pushes(appID: app.id, status: nil, before: nil, limit: 10).isEmpty)
    }
}
