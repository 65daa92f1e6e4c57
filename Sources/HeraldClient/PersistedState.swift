import Foundation

/// What the client keeps between launches, stored as one JSON value.
struct PersistedState: Codable, Equatable, Sendable {
    static let storageKey = "state"

    /// Generated once per install of the app; identifies this installation to the server.
    var installationId: String
    /// The installation as the app wants it.
    var wanted = InstallationFields()
    /// The installation as the server last acknowledged it; nil until the first successful registration
    /// and again after unregistering.
    var acknowledged: InstallationFields?
    /// When the server last acknowledged the installation.
    var lastSyncedAt: Date?
    /// True between `register(deviceToken:)` and `unregister()`: nothing is sent before the app has a token.
    var isRegistered = false

    static func load(from storage: any KeyValueStorage) throws -> PersistedState {
        if let data = try storage.data(forKey: storageKey),
           let state = try? JSONDecoder().decode(PersistedState.self, from: data) {
            return state
        }
        let fresh = PersistedState(installationId: UUID().uuidString.lowercased())
        try fresh.save(to: storage)
        return fresh
    }

    func save(to storage: any KeyValueStorage) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try storage.setData(try encoder.encode(self), forKey: Self.storageKey)
    }
}
