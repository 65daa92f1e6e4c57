import Foundation
import Testing
import HeraldStore
@testable import HeraldServer

/// Opens at the service level: reported by installation (the SDK) or by device token (the simulator).
@Suite struct OpensServiceTests {
    func sentPush(_ t: TestService) async throws -> (AppRecord, String) {
        let app = try await t.serviceApp()
        try await t.serviceRegister(app.id, "i-1", token: token(1))
        let push = try await t.services.pushes.create(appID: app.id, try PushInput(["target": ["all": true], "content": ["alert": "Hi"]], now: start))
        try await t.deliver()
        return (app, push.push.push.id)
    }

    @Test func anOpenCountsOncePerPushAndInstallation() async throws {
        let t = try await TestService()
        let (app, pushID) = try await sentPush(t)
        let opens = t.services.opens
        #expect(try await opens.record(appID: app.id, .installation(pushID: pushID, installationID: "i-1")))
        #expect(try await opens.record(appID: app.id, .installation(pushID: pushID, installationID: "i-1")) == false)
        #expect(try await opens.record(appID: app.id, .deviceToken(pushID: pushID, deviceToken: token(1).uppercased())) == false)
        #expect(try await t.services.pushes.get(appID: app.id, id: pushID).push.counts.opened == 1)

        await #expect(throws: ServiceError.notFound("Push nope or installation i-1")) {
            try await opens.record(appID: app.id, .installation(pushID: "nope", installationID: "i-1"))
        }
        await #expect(throws: ServiceError.notFound("Installation with device token \(token(7))")) {
            try await opens.record(appID: app.id, .deviceToken(pushID: pushID, deviceToken: token(7)))
        }
        await #expect(throws: ServiceError.notFound("Push nope")) {
            try await opens.record(appID: app.id, .deviceToken(pushID: "nope", deviceToken: token(1)))
        }
        // Another app cannot count opens of this push.
        let other = try await t.serviceApp()
        try await t.serviceRegister(other.id, "i-1", token: token(1))
        await #expect(throws: ServiceError.self) { try await opens.record(appID: other.id, .installation(pushID: pushID, installationID: "i-1")) }
    }

    @Test func aDeviceReportFindsThePushsApp() async throws {
        let t = try await TestService()
        let (app, pushID) = try await sentPush(t)
        let opens = t.services.opens
        #expect(try await opens.recordFromDevice(pushID: pushID, deviceToken: token(1)))
        #expect(try await t.services.pushes.get(appID: app.id, id: pushID).push.counts.opened == 1)
        await #expect(throws: ServiceError.notFound("Push nope")) { try await opens.recordFromDevice(pushID: "nope", deviceToken: token(1)) }
        do {
            _ = try await opens.recordFromDevice(pushID: pushID, deviceToken: "not hex")
            Issue.record("accepted a token that is not hex")
        } catch let e as ServiceError {
            #expect(e.code == "invalid_device_token")
        }
    }
}
