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
    private let scheduled = Mutex(false)
    /// Why the last write failed, nil after a good one (shown by `GET /health`).
    let lastError = Mutex<String?>(nil)
    /// What to write; set once by the owner (it reads the live state under its own lock).
    private let source = Mutex<(@Sendable () -> State)?>(nil)

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

    func setSource(_ provider: @escaping @Sendable () -> State) { source.withLock { $0 = provider } }

    /// Schedules a write of the current state; many changes in a row become one write, and the state is
    /// read when the write happens, not at every change.
    func scheduleSave() {
        let alreadyScheduled = scheduled.withLock { s in
            defer { s = true }
            return s
        }
        guard !alreadyScheduled else { return }
        queue.async { [self] in
            scheduled.withLock { $0 = false }
            guard let provider = source.withLock({ $0 }) else { return }
            do {
                try write(provider())
                lastError.withLock { $0 = nil }
            } catch {
                lastError.withLock { $0 = "writing \(stateURL.path) failed: \(error.localizedDescription)" }
            }
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
        try writeSecretFile(Array(try ca.identity.pem().utf8), to: caKeyURL.path)
        try Data(ca.certificate.pem.utf8).write(to: caCertificateURL, options: .atomic)
        return ca
    }
}
