/// Errors a simulator user can cause. Each message says what is wrong and what to do.
public enum SimulatorError: Error, Equatable, CustomStringConvertible {
    case invalidConfiguration(field: String, message: String)
    case unknownDevice(String)
    case unknownApp(device: String, bundleID: String)
    case invalidBundleID(String)
    case invalidRequest(field: String, message: String)
    case unknownSigningKey(String)
    case invalidSigningKey(keyID: String, message: String)
    case dataDirectory(path: String, message: String)
    case invalidAPNSFile(String)

    public var description: String {
        switch self {
        case let .invalidConfiguration(field, message): "invalid simulator setting \(field): \(message)"
        case let .unknownDevice(id): "no simulated device with id \(id); list devices with GET /devices"
        case let .unknownApp(device, bundle): "app \(bundle) is not installed on device \(device); install it first"
        case let .invalidBundleID(id): "invalid bundle id \"\(id)\": use reverse-DNS letters, digits, '.', '-' (e.g. com.example.app)"
        case let .invalidRequest(field, message): "invalid \(field): \(message)"
        case let .unknownSigningKey(id): "no signing key with id \(id) is registered; register it with POST /keys"
        case let .invalidSigningKey(id, message): "signing key \(id) is unusable: \(message)"
        case let .dataDirectory(path, message): "simulator data directory \(path): \(message)"
        case let .invalidAPNSFile(message): "invalid .apns file: \(message)"
        }
    }

    /// The `code` in JSON error bodies.
    var code: String {
        switch self {
        case .invalidConfiguration: "invalid_configuration"
        case .unknownDevice, .unknownApp, .unknownSigningKey: "not_found"
        case .invalidBundleID, .invalidRequest, .invalidSigningKey, .invalidAPNSFile: "invalid_request"
        case .dataDirectory: "data_directory"
        }
    }

    var field: String? {
        switch self {
        case let .invalidConfiguration(field, _), let .invalidRequest(field, _): field
        default: nil
        }
    }
}
