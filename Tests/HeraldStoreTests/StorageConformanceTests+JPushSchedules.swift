import Foundation
import Testing
@testable import HeraldStore

/// JPush schedules (`/v3/schedules`), on both stores: kept as sent, replaced in place, listed oldest first,
/// counted, deleted, and gone with their app.
extension StorageConformanceTests {
    @Test(arguments: StoreKind.available) func jpushSchedulesAreReplacedListedInOrderAndDeletedWithTheirApp(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().store
        try await makeApp(store)
        try await makeApp(store, id: "app2")
        let first = JPushScheduleRecord(appID: "app1", id: "s-1", name: "morning", enabled: true, trigger: #"{"single":{"time":"2027-01-16 08:00:00"}}"#,
                                        push: #"{"platform":"all","audience":"all"}"#, pushID: "100000000000001", createdAt: t0, updatedAt: t0)
        let second = JPushScheduleRecord(appID: "app1", id: "s-0", name: "later", enabled: false, trigger: "{}", push: "{}", pushID: nil,
                                         createdAt: t0.addingTimeInterval(10), updatedAt: t0.addingTimeInterval(10))
        try await store.saveJPushSchedule(second)
        try await store.saveJPushSchedule(first)
        #expect(try await store.jpushSchedule(appID: "app1", id: "s-1") == first)
        #expect(try await store.jpushSchedule(appID: "app2", id: "s-1") == nil, "another app's schedule is not found")
        #expect(try await store.jpushSchedules(appID: "app1", offset: 0, limit: 10).map(\.id) == ["s-1", "s-0"], "oldest first")
        #expect(try await store.jpushSchedules(appID: "app1", offset: 1, limit: 10).map(\.id) == ["s-0"])
        #expect(try await store.jpushScheduleCount(appID: "app1") == 2)

        // Saving again replaces every field but the creation time.
        var updated = first
        updated.name = "evening"; updated.enabled = false; updated.pushID = nil; updated.trigger = "{\"x\":1}"
        updated.createdAt = t0.addingTimeInterval(99); updated.updatedAt = t0.addingTimeInterval(20)
        try await store.saveJPushSchedule(updated)
        var expected = updated
        expected.createdAt = t0
        #expect(try await store.jpushSchedule(appID: "app1", id: "s-1") == expected)
        #expect(try await store.jpushScheduleCount(appID: "app1") == 2)

        #expect(try await store.deleteJPushSchedule(appID: "app1", id: "s-0"))
        #expect(try await !store.deleteJPushSchedule(appID: "app1", id: "s-0"))
        try await store.saveJPushSchedule(JPushScheduleRecord(appID: "app2", id: "s-9", name: "n", enabled: true, trigger: "{}", push: "{}",
                                                              pushID: nil, createdAt: t0, updatedAt: t0))
        #expect(try await store.deleteApp(id: "app2"))
        #expect(try await store.jpushScheduleCount(appID: "app2") == 0)
        #expect(try await store.jpushSchedules(appID: "app1", offset: 0, limit: 10).map(\.id) == ["s-1"])
    }
}
