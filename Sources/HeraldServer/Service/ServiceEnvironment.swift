import Foundation
import HeraldStore

/// What the services, the delivery engine and the operations routes share: their dependencies, injected once.
struct ServiceEnvironment: Sendable {
    let store: any HeraldStorage
    let crypto: any ServerCrypto
    let clock: any HeraldClock
    let configuration: HeraldConfiguration
    let metrics: Metrics
    let authenticator: KeyAuthenticator
    let logHandler: LogHandler
    /// APNs' last answers to each credential, flushed to the store every few seconds (the console's Apps screen).
    let credentialOutcomes = CredentialOutcomeLog()

    func log(_ level: LogLevel, _ message: String) { logHandler(level, message) }

    func newID(_ prefix: String = "") -> String {
        prefix.isEmpty ? UUID().uuidString.lowercased() : prefix + KeyAuthenticator.base62(crypto.randomBytes(10))
    }
}
