import Foundation
import HeraldCrypto

/// A provider signing key (.p8) registered with the simulator, as a developer account would hold it.
public struct SigningKey: Sendable {
    /// The 10-character Key ID that tokens name in `kid`.
    public var keyID: String
    /// The 10-character Team ID that tokens name in `iss`.
    public var teamID: String
    public var publicKey: PublicKey
    /// Bundle ids the key may push to; nil = every app of the team.
    public var bundleIDs: [String]?
    /// The environment a team-scoped key is limited to; nil = both (older keys).
    public var environment: PushEnvironment?

    public init(keyID: String, teamID: String, publicKey: PublicKey, bundleIDs: [String]? = nil, environment: PushEnvironment? = nil) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKey = publicKey
        self.bundleIDs = bundleIDs
        self.environment = environment
    }

    /// The persisted and JSON form (public key as PEM).
    struct Record: Codable {
        var keyID: String
        var teamID: String
        var publicKeyPEM: String
        var bundleIDs: [String]?
        var environment: PushEnvironment?
    }

    var record: Record {
        Record(keyID: keyID, teamID: teamID, publicKeyPEM: publicKey.pem, bundleIDs: bundleIDs, environment: environment)
    }

    init(record: Record) throws {
        let key: PublicKey
        do { key = try PublicKey(pem: record.publicKeyPEM) } catch {
            throw SimulatorError.invalidSigningKey(keyID: record.keyID, message: "publicKeyPem is not a PEM public key (\(error))")
        }
        self.init(keyID: record.keyID, teamID: record.teamID, publicKey: key, bundleIDs: record.bundleIDs, environment: record.environment)
    }
}
