import Foundation
import HeraldHTTP

/// The built-in APNs simulator of `herald serve`, on the service's own listener (the console's phone view
/// uses it; the simulator's inspection API is another port, so another origin). With an app's master key
/// (or an admin console session naming the app): the devices where the app (its topic) is installed, and
/// only that app's notifications. Without a built-in simulator every route answers 404.
struct SimulatorAPI {
    let simulator: (any SimulatorView)?
    let apps: AppsService

    var routes: [Route] {
        [
            Route("GET", "/v1/simulator/devices", .master, "The built-in simulator's devices with the app installed (paged: cursor, limit).", handler: devices),
            Route("GET", "/v1/simulator/devices/{deviceId}/notifications", .master,
                  "Notifications a simulated device received, newest first (?sinceMs= for those delivered after a time, limit).", handler: notifications),
            Route("POST", "/v1/simulator/devices/{deviceId}/opened", .master,
                  "The user opens a notification on a simulated device: {\"apnsId\"}; a Herald push counts the open.", handler: opened),
        ]
    }

    private func running() throws -> any SimulatorView {
        guard let simulator else {
            throw APIError(status: 404, code: "simulator_off", message: "herald serve runs no built-in simulator (simulator.enabled is false).")
        }
        return simulator
    }

    /// The app's bundle id, which its simulated installations and notifications carry.
    private func topic(_ ctx: RequestContext) async throws -> String {
        try await apps.get(id: try ctx.appID).topic ?? ""
    }

    func devices(_ ctx: RequestContext) async throws -> HTTPResponse {
        let simulator = try running()
        let topic = try await topic(ctx)
        let all = simulator.devices.filter { $0.apps.contains { $0.bundleID == topic } }
        let start = try ctx.intQuery("cursor", default: 0, range: 0...Int.max)
        let limit = try ctx.intQuery("limit", default: 50, range: 1...500)
        let page = all.dropFirst(start).prefix(limit)
        return .json(200, ["devices": .array(page.map { Self.json($0, topic: topic) }),
                           "nextCursor": start + page.count < all.count ? .string(String(start + page.count)) : .null])
    }

    /// The device, when the app is installed on it.
    private func device(_ ctx: RequestContext, topic: String) throws -> SimulatedDevice {
        guard let device = try running().device(ctx.parameter("deviceId")), device.apps.contains(where: { $0.bundleID == topic }) else {
            throw APIError(status: 404, code: "unknown_device", message: "No simulated device \(ctx.parameter("deviceId")) with this app; list them with GET /v1/simulator/devices.")
        }
        return device
    }

    func notifications(_ ctx: RequestContext) async throws -> HTTPResponse {
        let topic = try await topic(ctx)
        let device = try device(ctx, topic: topic)
        let since = try ctx.intQuery("sinceMs", default: 0, range: 0...Int.max)
        let limit = try ctx.intQuery("limit", default: 50, range: 1...500)
        let opened = device.openedAPNsIDs
        let list = device.inbox.filter { $0.bundleID == topic && Self.millis($0.deliveredAt) > since }.suffix(limit).reversed()
        return .json(200, ["notifications": .array(list.map { n in
            ["apnsId": .string(n.apnsID), "bundleId": .string(n.bundleID), "pushType": .string(n.pushType), "priority": .int(n.priority),
             "payload": (try? JSON(parsing: n.payload)) ?? .string(String(decoding: n.payload, as: UTF8.self)),
             "deliveredAt": ISO8601.json(n.deliveredAt), "deliveredAtMs": .int(Self.millis(n.deliveredAt)),
             "opened": .bool(opened.contains(n.apnsID.lowercased()))]
        })])
    }

    func opened(_ ctx: RequestContext) async throws -> HTTPResponse {
        let body = BodyReader(try ctx.jsonObject())
        try body.rejectUnknown(["apnsId"])
        let apnsID = try body.requiredString("apnsId", maxLength: 64)
        let topic = try await topic(ctx)
        guard try device(ctx, topic: topic).inbox.contains(where: { $0.bundleID == topic && $0.apnsID.lowercased() == apnsID.lowercased() }) else {
            throw APIError(status: 404, code: "not_found", message: "This device received no notification \(apnsID) of this app.", field: "apnsId")
        }
        do {
            let report = try running().reportOpened(deviceID: ctx.parameter("deviceId"), apnsID: apnsID)
            return .json(201, ["deviceId": .string(report.deviceID), "apnsId": .string(report.apnsID), "openedAt": ISO8601.json(report.openedAt)])
        } catch let error as SimulatorViewError {
            throw APIError(status: 404, code: "not_found", message: error.description, field: "apnsId")
        }
    }

    static func json(_ d: SimulatedDevice, topic: String) -> JSON {
        ["id": .string(d.id), "name": .string(d.name), "online": .bool(d.online), "notifications": .int(d.inbox.count(where: { $0.bundleID == topic })),
         "apps": .array(d.apps.filter { $0.bundleID == topic }.map { a in
             ["bundleId": .string(a.bundleID), "environment": .string(a.environment), "token": .string(a.token),
              "installed": .bool(a.installed), "badge": .optional(d.badges[a.bundleID])]
         })]
    }

    static func millis(_ date: Date) -> Int { Int((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}
