import Foundation
import HeraldHTTP
import Synchronization
import Testing
@testable import HeraldSimulator

@Suite("Devices and store-and-forward")
struct DeliveryTests {
    func body(_ alert: String, badge: Int? = nil) -> String {
        badge.map { #"{"aps":{"alert":"\#(alert)","badge":\#($0)}}"# } ?? #"{"aps":{"alert":"\#(alert)"}}"#
    }

    func alerts(_ list: [SimulatedNotification]) -> [String] {
        list.compactMap { n in
            let object = try? JSONSerialization.jsonObject(with: Data(n.payload)) as? [String: Any]
            return (object?["aps"] as? [String: Any])?["alert"] as? String
        }
    }

    @Test func offlineDeviceKeepsOnlyTheNewestPerAppAndGetsItOnReconnect() throws {
        let f = try Fixture()
        try f.simulator.setOnline(false, deviceID: f.device.id)
        let other = try f.simulator.install(bundleID: "com.example.other", environment: .sandbox, on: f.device.id).token
        #expect(f.send(push(to: f.token, body: body("one"))).status == 200)
        #expect(f.send(push(to: f.token, body: body("two"))).status == 200)
        let otherCert = ConnectionAuthState(environment: .sandbox, credential: .certificate(
            CertificateScope(bundleID: "com.example.other", topics: [], environments: [.sandbox])))
        #expect(f.send(push(to: other, topic: "com.example.other", body: body("other")), on: otherCert).status == 200)
        #expect(f.inbox.isEmpty)
        #expect(f.simulator.device(f.device.id)?.stored.count == 2)
        f.clock.advance(30)
        let delivered = try f.simulator.setOnline(true, deviceID: f.device.id)
        #expect(Set(alerts(delivered)) == ["two", "other"])
        #expect(Set(alerts(f.inbox)) == ["two", "other"])
        #expect(f.inbox.allSatisfy { $0.deliveredAt == f.clock.now })
        let stats = f.simulator.statistics
        #expect(stats.stored == 3 && stats.replacedWhileStored == 1 && stats.delivered == 2)
    }

    @Test func expirationZeroIsNotStoredAndPassedExpirationIsDropped() throws {
        let f = try Fixture()
        try f.simulator.setOnline(false, deviceID: f.device.id)
        #expect(f.send(push(to: f.token, headers: [("apns-expiration", "0")], body: body("now or never"))).status == 200)
        #expect(f.simulator.device(f.device.id)?.stored.isEmpty == true)
        let soon = Int(f.clock.now.timeIntervalSince1970) + 60
        #expect(f.send(push(to: f.token, headers: [("apns-expiration", String(soon))], body: body("short"))).status == 200)
        f.clock.advance(61)
        #expect(try f.simulator.setOnline(true, deviceID: f.device.id).isEmpty)
        #expect(f.inbox.isEmpty)
        #expect(f.simulator.statistics.droppedExpired == 2)
    }

    @Test func withoutExpirationTheDefaultStorageTimeApplies() throws {
        let f = try Fixture { $0.defaultStorageTime = 3600 }
        try f.simulator.setOnline(false, deviceID: f.device.id)
        _ = f.send(push(to: f.token, body: body("kept an hour")))
        f.clock.advance(3599)
        #expect(alerts(try f.simulator.setOnline(true, deviceID: f.device.id)) == ["kept an hour"])
    }

    @Test func expirationZeroStillReachesAnOnlineDevice() throws {
        let f = try Fixture()
        #expect(f.send(push(to: f.token, headers: [("apns-expiration", "0")])).status == 200)
        #expect(f.inbox.count == 1)
    }

    @Test func collapseIDReplacesTheEarlierNotificationInTheList() throws {
        let f = try Fixture()
        _ = f.send(push(to: f.token, headers: [("apns-collapse-id", "score")], body: body("1-0")))
        _ = f.send(push(to: f.token, body: body("unrelated")))
        _ = f.send(push(to: f.token, headers: [("apns-collapse-id", "score")], body: body("2-0")))
        #expect(alerts(f.inbox) == ["unrelated", "2-0"])
    }

    @Test func badgeFollowsTheLastDeliveredValue() throws {
        let f = try Fixture()
        _ = f.send(push(to: f.token, body: body("a", badge: 3)))
        #expect(f.simulator.device(f.device.id)?.badges[Fixture.bundleID] == 3)
        _ = f.send(push(to: f.token, body: body("b")))
        #expect(f.simulator.device(f.device.id)?.badges[Fixture.bundleID] == 3)
        _ = f.send(push(to: f.token, body: body("c", badge: 0)))
        #expect(f.simulator.device(f.device.id)?.badges[Fixture.bundleID] == 0)
    }

    @Test func lowPriorityIsHeldAndDeliveredInABurst() throws {
        let f = try Fixture { $0.lowPriorityDelivery = .burst(interval: 60) }
        _ = f.send(push(to: f.token, headers: [("apns-priority", "5")], body: body("p5")))
        _ = f.send(push(to: f.token, headers: [("apns-priority", "1")], body: body("p1")))
        #expect(f.inbox.isEmpty)
        #expect(f.simulator.statistics.held == 2)
        f.clock.advance(59)
        f.simulator.tick()
        #expect(f.inbox.isEmpty)
        f.clock.advance(1)
        f.simulator.tick()
        #expect(alerts(f.inbox) == ["p5", "p1"])
    }

    @Test func priorityTenDeliveryBringsHeldNotificationsAlong() throws {
        let f = try Fixture { $0.lowPriorityDelivery = .burst(interval: 600) }
        _ = f.send(push(to: f.token, headers: [("apns-priority", "5")], body: body("quiet")))
        _ = f.send(push(to: f.token, body: body("urgent")))
        #expect(alerts(f.inbox) == ["quiet", "urgent"])
    }

    @Test func uninstallDropsWhatWasStoredForTheApp() throws {
        let f = try Fixture()
        try f.simulator.setOnline(false, deviceID: f.device.id)
        _ = f.send(push(to: f.token))
        try f.simulator.uninstall(bundleID: Fixture.bundleID, from: f.device.id)
        #expect(try f.simulator.setOnline(true, deviceID: f.device.id).isEmpty)
    }

    @Test func inboxKeepsTheNewestUpToTheLimit() throws {
        let f = try Fixture { $0.inboxLimit = 3 }
        for i in 1...5 { _ = f.send(push(to: f.token, body: body("n\(i)"))) }
        #expect(alerts(f.inbox) == ["n3", "n4", "n5"])
    }

    @Test func installingTwiceKeepsTheTokenAndSwitchingEnvironmentReinstalls() throws {
        let f = try Fixture()
        #expect(try f.simulator.install(bundleID: Fixture.bundleID, environment: .sandbox, on: f.device.id).token == f.token)
        let production = try f.simulator.install(bundleID: Fixture.bundleID, environment: .production, on: f.device.id)
        #expect(production.token != f.token)
        #expect(f.send(push(to: f.token)).status == 410)
        #expect(f.simulator.device(f.device.id)?.apps.count == 2)
    }

    @Test func deviceAndAppErrorsSayWhatToDo() throws {
        let f = try Fixture()
        #expect(throws: SimulatorError.unknownDevice("nope")) { try f.simulator.install(bundleID: "com.a.b", environment: .sandbox, on: "nope") }
        #expect(throws: SimulatorError.invalidBundleID("")) { try f.simulator.install(bundleID: "", environment: .sandbox, on: f.device.id) }
        #expect(throws: SimulatorError.unknownApp(device: f.device.id, bundleID: "com.absent")) {
            try f.simulator.uninstall(bundleID: "com.absent", from: f.device.id)
        }
    }

    @Test func openedReportIsRecordedAndObserved() throws {
        let f = try Fixture()
        let seen = TestBox<[OpenReport]>([])
        f.simulator.addOpenObserver { report in seen.mutate { $0.append(report) } }
        let response = f.send(push(to: f.token, body: #"{"aps":{"alert":"x"},"herald":{"push":"p-42"}}"#))
        let id = try #require(response.headers["apns-id"])
        let report = try f.simulator.reportOpened(deviceID: f.device.id, apnsID: id)
        #expect(report.bundleID == Fixture.bundleID && report.deviceToken == f.token && report.openedAt == f.clock.now)
        #expect(report.customPayload == #"{"herald":{"push":"p-42"}}"#)
        #expect(seen.value == [report])
        #expect(f.simulator.statistics.opens == 1)
        #expect(throws: SimulatorError.self) { try f.simulator.reportOpened(deviceID: f.device.id, apnsID: "never-sent") }
    }

    @Test func resetClearsNotificationsAndCountersButKeepsDevices() throws {
        let f = try Fixture()
        _ = f.send(push(to: f.token))
        f.simulator.reset()
        #expect(f.inbox.isEmpty)
        #expect(f.simulator.statistics == SimulatorStatistics())
        #expect(f.send(push(to: f.token)).status == 200)
    }
}

final class TestBox<T: Sendable>: Sendable {
    private let storage: Mutex<T>
    init(_ value: T) { storage = Mutex(value) }
    var value: T { storage.withLock { $0 } }
    func mutate(_ body: (inout T) -> Void) { storage.withLock { body(&$0) } }
}
