import Foundation
import HeraldCrypto

/// A provider signing key the simulator made: the private half (.p8 PEM) for the provider, the public
/// half registered with the simulator.
public struct GeneratedSigningKey: Sendable {
    public var keyID: String
    public var teamID: String
    /// PKCS#8 PEM, what Apple's `AuthKey_<keyID>.p8` holds.
    public var privateKeyPEM: String
    /// Where it was saved (`<dataDirectory>/AuthKey_<keyID>.p8`), nil without a data directory.
    public var file: URL?
}

extension Simulator {
    /// Makes a P-256 signing key, registers its public half, and (with a data directory) saves the
    /// private half as `AuthKey_<keyID>.p8` (mode 0600), so `herald send --key` can use it at once.
    public func generateSigningKey(keyID: String? = nil, teamID: String = "SIMTEAM001", bundleIDs: [String]? = nil,
                                   environment: PushEnvironment? = nil) throws -> GeneratedSigningKey {
        let id = keyID ?? Self.randomKeyID()
        let privateKey = try PrivateKey.generateP256()
        try registerSigningKey(SigningKey(keyID: id, teamID: teamID, publicKey: privateKey.publicKey,
                                          bundleIDs: bundleIDs, environment: environment))
        let pem = try privateKey.pkcs8PEM()
        var file: URL?
        if let directory = configuration.dataDirectory {
            let url = directory.appendingPathComponent("AuthKey_\(id).p8")
            do {
                try writeSecretFile(Array(pem.utf8), to: url.path)
            } catch {
                throw SimulatorError.dataDirectory(path: url.path, message: "cannot write the key (\(error.localizedDescription))")
            }
            file = url
        }
        return GeneratedSigningKey(keyID: id, teamID: teamID, privateKeyPEM: pem, file: file)
    }

    private static func randomKeyID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<10).map { _ in alphabet.randomElement()! })
    }
}
