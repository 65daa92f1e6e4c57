import Dispatch
import Foundation
import HeraldCrypto
import Synchronization

/// The data directory: `state.json` (devices, apps, tokens, signing keys, pending feedback) and the
/// simulator CA (`ca-key.pem`, `ca.pem`). Writes are atomic (temporary file + rename), coalesced and done
/// on a private queue so callers on loop threads never wait for the disk.
final class SimulatorDataStore: Sendable {
    struct State: Codable {
        var version = 1
        var registry: DeviceRegistry.Snapshot
        var keys: [SigningKey.Record]
    }

    let directory: URL
    private let queue = DispatchQueue(label: "herald.simulator.store")
    private let pending = Mutex<State?>(nil)

    var stateURL: URL { directory.appendingPathComponent("state.json") }
    var caKeyURL: URL { directory.appendingPathComponent("ca-key.pem") }
    var caCertificateURL: URL { directory.appendingPathComponent("ca.pem") }

    init(directory: URL) throws {
        self.directory = directory
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw SimulatorError.dataDirectory(path: directory.path, message: "cannot create it (\(error.localizedDescription)); pass a writable directory")
        }
    }

    func load() throws -> State? {
        guard FileManager.default.fileExists(atPath: stateURL.path) else { return nil }
        do {
            let data = try Data(contentsOf: stateURL)
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .millisecondsSince1970
            return try decoder.decode(State.self, from: data)
        } catch {
            throw SimulatorError.dataDirectory(path: stateURL.path, message: "unreadable state (\(error)); move it away to start fresh")
        }
    }

    /// Schedules a write of `state`; several saves in a row become one write of the newest.
    func save(_ state: State) {
        let wasIdle = pending.withLock { p in
            defer { p = state }
            return p == nil
        }
        guard wasIdle else { return }
        queue.async { [self] in
            guard let latest = pending.withLock({ p -> State? in defer { p = nil }; return p }) else { return }
            try? write(latest)
        }
    }

    /// Waits for scheduled writes.
    func flush() { queue.sync {} }

    private func write(_ state: State) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(state).write(to: stateURL, options: .atomic)
    }

    /// The simulator CA: loaded from the directory, or made and saved on first run.
    func certificateAuthority(now: Date) throws -> CertificateAuthority {
        let fm = FileManager.default
        if fm.fileExists(atPath: caKeyURL.path) {
            do {
                return CertificateAuthority(identity: try CertificateIdentity(pemFile: caKeyURL.path))
            } catch {
                throw SimulatorError.dataDirectory(path: caKeyURL.path, message: "the simulator CA is unreadable (\(error)); delete ca-key.pem and ca.pem to make a new one")
            }
        }
        let ca = try CertificateAuthority.makeSelfSigned(commonName: "Herald APNs Simulator CA", now: now)
        try Data(try ca.identity.pem().utf8).write(to: caKeyURL, options: .atomic)
        try? fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: caKeyURL.path)
        try Data(ca.certificate.pem.utf8).write(to: caCertificateURL, options: .atomic)
        return ca
    }
}
