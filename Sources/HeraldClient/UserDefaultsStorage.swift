import Foundation

/// Storage in `UserDefaults`: the usual choice in an iOS app, and the only one shared with an app
/// extension when you pass an App Group suite name.
public struct UserDefaultsStorage: KeyValueStorage {
    /// The suite (an App Group id to share with extensions), or nil for `UserDefaults.standard`.
    public let suiteName: String?
    /// Prepended to every key so Herald's entries are easy to recognise and never clash with the app's.
    public let keyPrefix: String

    public init(suiteName: String? = nil, keyPrefix: String = "herald.") {
        self.suiteName = suiteName
        self.keyPrefix = keyPrefix
    }

    // UserDefaults is thread-safe; it is looked up per call so this type holds nothing that is not Sendable.
    private var defaults: UserDefaults {
        get throws {
            guard let suiteName else { return .standard }
            guard let defaults = UserDefaults(suiteName: suiteName) else {
                throw HeraldClientError.storageFailed(
                    "UserDefaults refused the suite \"\(suiteName)\"; check the App Group entitlement")
            }
            return defaults
        }
    }

    public func data(forKey key: String) throws -> Data? {
        try defaults.data(forKey: keyPrefix + key)
    }

    public func setData(_ data: Data?, forKey key: String) throws {
        let defaults = try defaults
        if let data {
            defaults.set(data, forKey: keyPrefix + key)
        } else {
            defaults.removeObject(forKey: keyPrefix + key)
        }
    }
}
