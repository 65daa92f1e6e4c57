import Foundation

/// What the service shows of `herald serve`'s built-in simulator (the console's phone view, `/v1/simulator/...`),
/// as plain values: the process that runs the simulator (`ProviderServer`, in HeraldProvider) supplies it, so
/// HeraldServer does not depend on the simulator.
public protocol SimulatorView: Sendable {
    var devices: [SimulatedDevice] { get }
    func device(_ id: String) -> SimulatedDevice?
    /// The user opens a notification on a device; throws `SimulatorViewError` for an unknown device or notification.
    func reportOpened(deviceID: String, apnsID: String) throws -> SimulatedOpen
}

public struct SimulatedDevice: Sendable {
    public struct App: Sendable {
        public var bundleID: String
        public var environment: String
        public var token: String
        public var installed: Bool
        public init(bundleID: String, environment: String, token: String, installed: Bool) {
            self.bundleID = bundleID; self.environment = environment; self.token = token; self.installed = installed
        }
    }

    public struct Notification: Sendable {
        public var apnsID: String
        public var bundleID: String
        public var pushType: String
        public var priority: Int
        public var payload: [UInt8]
        public var deliveredAt: Date
        public init(apnsID: String, bundleID: String, pushType: String, priority: Int, payload: [UInt8], deliveredAt: Date) {
            self.apnsID = apnsID; self.bundleID = bundleID; self.pushType = pushType; self.priority = priority
            self.payload = payload; self.deliveredAt = deliveredAt
        }
    }

    public var id: String
    public var name: String
    public var online: Bool
    public var apps: [App]
    public var badges: [String: Int]
    public var inbox: [Notification]
    /// apns-ids of the notifications the user opened (lowercased).
    public var openedAPNsIDs: Set<String>

    public init(id: String, name: String, online: Bool, apps: [App], badges: [String: Int], inbox: [Notification], openedAPNsIDs: Set<String>) {
        self.id = id; self.name = name; self.online = online; self.apps = apps; self.badges = badges
        self.inbox = inbox; self.openedAPNsIDs = openedAPNsIDs
    }
}

public struct SimulatedOpen: Sendable {
    public var deviceID: String
    public var apnsID: String
    public var openedAt: Date
    public init(deviceID: String, apnsID: String, openedAt: Date) { self.deviceID = deviceID; self.apnsID = apnsID; self.openedAt = openedAt }
}

/// Why an open could not be reported, in the simulator's words.
public struct SimulatorViewError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
