import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The facts about this device and app that an installation carries. ``current`` reads them from the
/// system; tests and simulators pass fixed values.
public struct DeviceInfo: Sendable, Equatable {
    /// The locale identifier, e.g. "zh-Hans_CN" or "en_US".
    public var locale: String?
    /// The IANA time zone, e.g. "Asia/Shanghai".
    public var timeZone: String?
    /// The app's marketing version (CFBundleShortVersionString).
    public var appVersion: String?
    /// The operating system version, e.g. "17.2.1".
    public var osVersion: String?
    /// The hardware model, e.g. "iPhone15,2".
    public var deviceModel: String?

    public init(locale: String?, timeZone: String?, appVersion: String?, osVersion: String?, deviceModel: String?) {
        self.locale = locale
        self.timeZone = timeZone
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.deviceModel = deviceModel
    }

    /// What the running system reports, read when called (the user may change locale or time zone).
    public static var current: DeviceInfo {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return DeviceInfo(
            locale: Locale.current.identifier,
            timeZone: TimeZone.current.identifier,
            appVersion: Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String,
            osVersion: "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)",
            deviceModel: hardwareModel())
    }

    private static func hardwareModel() -> String? {
        // The simulator reports the Mac's CPU from uname; it names the simulated device in the environment.
        if let simulated = ProcessInfo.processInfo.environment["SIMULATOR_MODEL_IDENTIFIER"] { return simulated }
        var system = utsname()
        guard uname(&system) == 0 else { return nil }
        let machine = withUnsafeBytes(of: &system.machine) { bytes in
            String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return machine.isEmpty ? nil : machine
    }
}
