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
    /// Apps read recently, for the push API (`AppRecordCache`); every change to an app here forgets it.
    let apps = AppRecordCache()

    func log(_ level: LogLevel, _ message: String) { logHandler(level, message) }

    /// A new record id: a version-4 UUID, or with a prefix 10 random bytes in base 62. The bytes are the
    /// server's CSPRNG's (ids a client key may address must not be guessable), drawn in process: Foundation's
    /// `UUID()` opens, reads and closes /dev/urandom for each one, three system calls per registration.
    func newID(_ prefix: String = "") -> String {
        guard prefix.isEmpty else { return prefix + KeyAuthenticator.base62(crypto.randomBytes(10)) }
        var b = crypto.randomBytes(16)
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        return UUID(uuid: b.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }).uuidString.lowercased()
    }
}
