import Foundation
import HeraldServer
import HeraldSimulator

/// The built-in simulator as the service shows it (the console's phone view): HeraldServer knows only
/// `SimulatorView`'s plain values, so it does not depend on the simulator.
struct BuiltInSimulatorView: SimulatorView {
    let simulator: Simulator

    var devices: [SimulatedDevice] { simulator.devices.map(Self.view) }

    func device(_ id: String) -> SimulatedDevice? { simulator.device(id).map(Self.view) }

    func reportOpened(deviceID: String, apnsID: String) throws -> SimulatedOpen {
        do {
            let report = try simulator.reportOpened(deviceID: deviceID, apnsID: apnsID)
            return SimulatedOpen(deviceID: report.deviceID, apnsID: report.apnsID, openedAt: report.openedAt)
        } catch let error as SimulatorError {
            throw SimulatorViewError(error.description)
        }
    }

    static func view(_ d: Device) -> SimulatedDevice {
        SimulatedDevice(
            id: d.id, name: d.name, online: d.online,
            apps: d.apps.map { .init(bundleID: $0.bundleID, environment: $0.environment.rawValue, token: $0.token, installed: $0.uninstalledAt == nil) },
            badges: d.badges,
            inbox: d.inbox.map { .init(apnsID: $0.apnsID, bundleID: $0.bundleID, pushType: $0.pushType, priority: $0.priority,
                                       payload: $0.payload, deliveredAt: $0.deliveredAt ?? $0.receivedAt) },
            openedAPNsIDs: Set(d.opens.map { $0.apnsID.lowercased() }))
    }
}
