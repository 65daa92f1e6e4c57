import Foundation
import HeraldCrypto

/// Devices, installations and tokens, plus store-and-forward. A value type: the simulator keeps it
/// behind one lock and every mutation takes `now` so expiry is testable.
struct DeviceRegistry {
    private(set) var devices: [String: Device] = [:]
    /// Every token ever issued (lowercase hex) → where it lives. Uninstalled tokens stay for 410.
    private(set) var tokens: [String: TokenRecord] = [:]
    /// Tokens of uninstalled apps not yet read from the feedback service.
    private(set) var feedback: [FeedbackEntry] = []
    private var nextDeviceNumber = 1

    struct TokenRecord: Codable, Equatable {
        var deviceID: String
        var bundleID: String
        var environment: PushEnvironment
        var uninstalledAt: Date?
    }

    struct FeedbackEntry: Codable, Equatable {
        var token: String
        var bundleID: String
        var environment: PushEnvironment
        var time: Date
    }

    /// What became of a notification handed to `deliver`.
    enum Outcome: Equatable {
        case delivered
        /// Held for a low-priority burst.
        case held
        /// Device offline: kept; `replaced` says an older stored one for the same app was dropped.
        case stored(replaced: Bool)
        /// Device offline and `apns-expiration` 0 or passed: dropped.
        case dropped
    }

    var tokenRule = DeviceTokenRule()
    var inboxLimit = 1000
    var lowPriority: SimulatorConfiguration.LowPriorityDelivery = .immediate
    var defaultStorageTime: TimeInterval = 30 * 24 * 3600

    // MARK: devices and apps

    mutating func createDevice(name: String?, online: Bool, now: Date) -> Device {
        var id: String
        repeat {
            id = "dev-\(nextDeviceNumber)"
            nextDeviceNumber += 1
        } while devices[id] != nil
        let device = Device(id: id, name: name ?? "iPhone \(id.dropFirst(4))", online: online, createdAt: now)
        devices[id] = device
        return device
    }

    mutating func removeDevice(_ id: String) throws {
        guard let device = devices.removeValue(forKey: id) else { throw SimulatorError.unknownDevice(id) }
        for app in device.apps { tokens[app.token] = nil }
        feedback.removeAll { tokens[$0.token] == nil }
    }

    /// Installs `bundleID` and returns its token. Installing what is already installed in the same
    /// environment returns the existing token; a different environment is a reinstall.
    mutating func install(bundleID: String, environment: PushEnvironment, on deviceID: String, now: Date,
                          random: inout some RandomNumberGenerator) throws -> AppInstallation {
        try Self.checkBundleID(bundleID)
        guard var device = devices.removeValue(forKey: deviceID) else { throw SimulatorError.unknownDevice(deviceID) }
        defer { devices[deviceID] = device }
        if let existing = device.installation(of: bundleID) {
            if existing.environment == environment { return existing }
            markUninstalled(bundleID: bundleID, device: &device, now: now)
        }
        var token: String
        repeat { token = Self.randomToken(bytes: tokenRule.issuedByteCount, using: &random) } while tokens[token] != nil
        let install = AppInstallation(bundleID: bundleID, environment: environment, token: token, installedAt: now, uninstalledAt: nil)
        device.apps.append(install)
        tokens[token] = TokenRecord(deviceID: deviceID, bundleID: bundleID, environment: environment)
        return install
    }

    /// Uninstalls `bundleID`: its token answers 410 `Unregistered` from `now` on and shows up on the
    /// feedback service; stored and held notifications for the app are dropped.
    mutating func uninstall(bundleID: String, from deviceID: String, now: Date) throws -> AppInstallation {
        guard var device = devices.removeValue(forKey: deviceID) else { throw SimulatorError.unknownDevice(deviceID) }
        defer { devices[deviceID] = device }
        guard device.installation(of: bundleID) != nil else { throw SimulatorError.unknownApp(device: deviceID, bundleID: bundleID) }
        return markUninstalled(bundleID: bundleID, device: &device, now: now)
    }

    @discardableResult
    private mutating func markUninstalled(bundleID: String, device: inout Device, now: Date) -> AppInstallation {
        let index = device.apps.lastIndex { $0.bundleID == bundleID && $0.uninstalledAt == nil }!
        device.apps[index].uninstalledAt = now
        let install = device.apps[index]
        device.stored[bundleID] = nil
        device.held.removeAll { $0.bundleID == bundleID }
        device.badges[bundleID] = nil
        tokens[install.token]?.uninstalledAt = now
        feedback.append(FeedbackEntry(token: install.token, bundleID: bundleID, environment: install.environment, time: now))
        return install
    }

    func token(_ token: String) -> TokenRecord? { tokens[token] }

    // MARK: delivery

    /// Hands `notification` to its device: at once when online (or held if low priority and bursts are
    /// configured), stored when offline. Returns the outcome and what was delivered now (for streams).
    mutating func deliver(_ notification: SimulatedNotification, now: Date) -> (Outcome, [SimulatedNotification]) {
        guard let record = tokens[notification.deviceToken], record.uninstalledAt == nil,
              let index = devices.index(forKey: record.deviceID) else { return (.dropped, []) }
        // In place (a mutating call through the dictionary's storage): reading `online` through the
        // subscript would copy the whole device first.
        switch devices.values[index].storeIfOffline(notification, dropping: notification.isDoNotStore || isExpired(notification, now: now)) {
        case .online: break
        case .dropped: return (.dropped, [])
        case let .stored(replaced): return (.stored(replaced: replaced), [])
        }
        var device = devices.remove(at: index).value
        // Taken out of the dictionary so the inbox is uniquely referenced: appending does not copy it.
        defer { devices[record.deviceID] = device }
        if notification.priority < 10, case .burst = lowPriority {
            if device.held.isEmpty { device.heldSince = now }
            device.held.append(notification)
            return (.held, [])
        }
        var delivered = flushHeld(&device, now: now)
        delivered.append(receive(notification, on: &device, now: now))
        return (.delivered, delivered)
    }

    /// Brings a device online or offline. Coming online delivers stored (unexpired) and held notifications.
    mutating func setOnline(_ online: Bool, deviceID: String, now: Date) throws -> (delivered: [SimulatedNotification], expired: Int) {
        guard var device = devices.removeValue(forKey: deviceID) else { throw SimulatorError.unknownDevice(deviceID) }
        defer { devices[deviceID] = device }
        let wasOnline = device.online
        device.online = online
        guard online, !wasOnline else { return ([], 0) }
        var delivered = flushHeld(&device, now: now)
        var expired = 0
        for notification in device.stored.values.sorted(by: { $0.receivedAt < $1.receivedAt }) {
            if isExpired(notification, now: now) { expired += 1; continue }
            delivered.append(receive(notification, on: &device, now: now))
        }
        device.stored = [:]
        return (delivered, expired)
    }

    /// Delivers held low-priority bursts whose interval has passed. Call periodically.
    mutating func tick(now: Date) -> [SimulatedNotification] {
        guard case let .burst(interval) = lowPriority else { return [] }
        // Decide first, then mutate: iterating the dictionary while mutating it would copy it.
        let due = devices.compactMap { id, d in
            d.online && d.heldSince.map { now.timeIntervalSince($0) >= interval } == true ? id : nil
        }
        var delivered: [SimulatedNotification] = []
        for id in due { delivered += flushHeld(&devices[id]!, now: now) }
        return delivered
    }

    private func flushHeld(_ device: inout Device, now: Date) -> [SimulatedNotification] {
        guard !device.held.isEmpty else { return [] }
        let held = device.held
        device.held = []
        device.heldSince = nil
        return held.map { receive($0, on: &device, now: now) }
    }

    /// Puts a notification in the device's list: a collapse id replaces the earlier one with the same
    /// id (same app); a badge updates the app's badge.
    private func receive(_ notification: SimulatedNotification, on device: inout Device, now: Date) -> SimulatedNotification {
        var n = notification
        n.deliveredAt = now
        if let collapseID = n.collapseID {
            device.inbox.removeAll { $0.collapseID == collapseID && $0.bundleID == n.bundleID }
        }
        if let badge = n.badge { device.badges[n.bundleID] = badge }
        device.inbox.append(n)
        // Trim in batches so a full inbox does not shift every element on every delivery.
        if device.inbox.count >= inboxLimit + max(1, inboxLimit / 4) { device.inbox.removeFirst(device.inbox.count - inboxLimit) }
        return n
    }

    private func isExpired(_ n: SimulatedNotification, now: Date) -> Bool {
        if let expiration = n.expiration { return now > expiration }
        return now.timeIntervalSince(n.receivedAt) > defaultStorageTime
    }

    // MARK: opens, feedback, reset

    mutating func recordOpen(deviceID: String, apnsID: String, now: Date) throws -> OpenReport {
        guard var device = devices.removeValue(forKey: deviceID) else { throw SimulatorError.unknownDevice(deviceID) }
        defer { devices[deviceID] = device }
        guard let n = device.inbox.last(where: { $0.apnsID == apnsID }) else {
            throw SimulatorError.invalidRequest(field: "apnsId", message: "device \(deviceID) has not received notification \(apnsID)")
        }
        let report = OpenReport(deviceID: deviceID, bundleID: n.bundleID, deviceToken: n.deviceToken, apnsID: apnsID,
                                openedAt: now, customPayload: Self.customKeys(of: n.payload))
        device.opens.append(report)
        return report
    }

    /// Feedback tuples for `bundleID` in `environment` (all apps when nil), forgotten once read.
    mutating func drainFeedback(environment: PushEnvironment, bundleID: String?) -> [FeedbackEntry] {
        let matches = { (e: FeedbackEntry) in e.environment == environment && (bundleID == nil || e.bundleID == bundleID) }
        let read = feedback.filter(matches)
        feedback.removeAll(where: matches)
        return read
    }

    /// Forgets received, stored, held notifications and opens; devices, apps and tokens stay.
    mutating func clearNotifications() {
        for id in Array(devices.keys) {
            devices[id]!.inbox = []
            devices[id]!.stored = [:]
            devices[id]!.held = []
            devices[id]!.heldSince = nil
            devices[id]!.opens = []
        }
    }

    // MARK: persistence

    struct Snapshot: Codable {
        var devices: [Device]
        var tokens: [String: TokenRecord]
        var feedback: [FeedbackEntry]
        var nextDeviceNumber: Int
    }

    var snapshot: Snapshot {
        Snapshot(devices: devices.values.sorted { $0.createdAt < $1.createdAt || ($0.createdAt == $1.createdAt && $0.id < $1.id) },
                 tokens: tokens, feedback: feedback, nextDeviceNumber: nextDeviceNumber)
    }

    mutating func restore(_ s: Snapshot) {
        devices = Dictionary(uniqueKeysWithValues: s.devices.map { ($0.id, $0) })
        tokens = s.tokens
        feedback = s.feedback
        nextDeviceNumber = s.nextDeviceNumber
    }

    // MARK: helpers

    static func randomToken(bytes: Int, using random: inout some RandomNumberGenerator) -> String {
        hexString((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    static func checkBundleID(_ id: String) throws {
        let allowed = id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x7a) || c == UInt8(ascii: ".") || c == UInt8(ascii: "-")
        }
        guard !id.isEmpty, id.utf8.count <= 155, allowed, !id.hasPrefix("."), !id.hasSuffix(".") else {
            throw SimulatorError.invalidBundleID(id)
        }
    }

    static func customKeys(of payload: [UInt8]) -> String? {
        guard var object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else { return nil }
        object["aps"] = nil
        guard !object.isEmpty, let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
