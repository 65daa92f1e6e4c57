import Foundation

/// Xcode's `.apns` file: a notification payload plus `"Simulator Target Bundle"` naming the app
/// (what `xcrun simctl push` and drag-and-drop onto the iOS Simulator take).
public struct APNSFile: Sendable, Equatable {
    public static let targetBundleKey = "Simulator Target Bundle"

    public var bundleID: String
    /// The payload as delivered: the file without `Simulator Target Bundle`.
    public var payload: [UInt8]

    public init(_ bytes: [UInt8]) throws {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else {
            throw SimulatorError.invalidAPNSFile("it is not a JSON object")
        }
        guard let bundle = object.removeValue(forKey: Self.targetBundleKey) as? String, !bundle.isEmpty else {
            throw SimulatorError.invalidAPNSFile("it has no \"\(Self.targetBundleKey)\" naming the app; add it or send through the provider API")
        }
        guard object["aps"] is [String: Any] else {
            throw SimulatorError.invalidAPNSFile("it has no \"aps\" dictionary")
        }
        let payload = Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        guard payload.count <= 4096 else {
            throw SimulatorError.invalidAPNSFile("the payload is \(payload.count) bytes; APNs allows 4096")
        }
        bundleID = bundle
        self.payload = payload
    }
}

extension Simulator {
    /// Delivers an `.apns` file locally, without the provider API: to `deviceID` (which must have the app),
    /// or to every device that has the app installed when nil. Returns the notifications as handed over.
    @discardableResult
    public func deliverAPNSFile(_ bytes: [UInt8], deviceID: String? = nil) throws -> [SimulatedNotification] {
        let file = try APNSFile(bytes)
        let targets: [Device]
        if let deviceID {
            guard let device = device(deviceID) else { throw SimulatorError.unknownDevice(deviceID) }
            guard device.installation(of: file.bundleID) != nil else {
                throw SimulatorError.unknownApp(device: deviceID, bundleID: file.bundleID)
            }
            targets = [device]
        } else {
            targets = devices.filter { $0.installation(of: file.bundleID) != nil }
        }
        let now = clock()
        return targets.map { device in
            let install = device.installation(of: file.bundleID)!
            let n = SimulatedNotification(
                apnsID: provider.newAPNSID(), deviceToken: install.token, bundleID: file.bundleID, topic: file.bundleID,
                pushType: "alert", priority: 10, expiration: nil, collapseID: nil, headers: [:], payload: file.payload,
                source: .apnsFile, receivedAt: now)
            state.accept(n, now: now)
            return n
        }
    }
}
