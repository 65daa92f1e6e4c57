import Foundation
import Synchronization
import HeraldStore

/// APNs' last answers to each app credential (a notification accepted, or the credential rejected), kept
/// in memory as the delivery engine gets them and written to the store at most every `flushInterval` (and
/// at a clean stop): the console shows when a credential last worked without a write per notification.
/// Recording is one lock per batch. A crash loses at most the last interval's answers; the next ones
/// replace them.
final class CredentialOutcomeLog: Sendable {
    /// How often answers are written to the store (when any changed).
    static let flushInterval: Duration = .seconds(5)

    private struct Key: Hashable { var appID: String; var environment: String }
    private let unflushed = Mutex<[Key: CredentialOutcomeRecord]>([:])
    private let flusher = Mutex<Task<Void, Never>?>(nil)

    /// One batch's answer for the app's credential in `environment`: some notification accepted, and/or
    /// the credential rejected with `rejectedReason`.
    func record(appID: String, environment: String, accepted: Bool, rejectedReason: String?, at: Date) {
        guard accepted || rejectedReason != nil else { return }
        let answer = CredentialOutcomeRecord(appID: appID, environment: environment, acceptedAt: accepted ? at : nil,
                                             rejectedAt: rejectedReason == nil ? nil : at, rejectedReason: rejectedReason)
        unflushed.withLock { $0[Key(appID: appID, environment: environment), default: answer].merge(answer) }
    }

    /// The answers `stored` for the app, updated with this node's not yet written.
    func merged(appID: String, stored: [CredentialOutcomeRecord]) -> [String: CredentialOutcomeRecord] {
        var out = Dictionary(stored.map { ($0.environment, $0) }, uniquingKeysWith: { a, _ in a })
        for (key, answer) in unflushed.withLock({ $0 }) where key.appID == appID {
            out[key.environment, default: answer].merge(answer)
        }
        return out
    }

    /// Writes the answers not yet stored. Those that change meanwhile stay for the next flush; after a failed
    /// write all stay.
    func flush(to store: any HeraldStorage) async throws {
        let snapshot = unflushed.withLock { $0 }
        guard !snapshot.isEmpty else { return }
        try await store.recordCredentialOutcomes(Array(snapshot.values))
        unflushed.withLock { current in
            for (key, written) in snapshot where current[key] == written { current.removeValue(forKey: key) }
        }
    }

    /// Flushes every `flushInterval` until `stop`.
    func startFlushing(to store: any HeraldStorage, log: @escaping LogHandler) {
        let task = Task { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.flushInterval)
                do { try await flush(to: store) } catch {
                    log(.warning, "could not store the credentials' last APNs answers (\(error)); retrying in \(Self.flushInterval)")
                }
            }
        }
        flusher.withLock { $0 = task }
    }

    /// Ends the periodic flushes and writes what is left.
    func stop(flushingTo store: any HeraldStorage) async {
        if let task = flusher.withLock({ t -> Task<Void, Never>? in defer { t = nil }; return t }) {
            task.cancel()
            await task.value
        }
        try? await flush(to: store)
    }
}

extension CredentialOutcomeRecord {
    /// Keeps the later of each time (and the reason of the later rejection).
    mutating func merge(_ other: CredentialOutcomeRecord) {
        if let a = other.acceptedAt, a > (acceptedAt ?? .distantPast) { acceptedAt = a }
        if let r = other.rejectedAt, r > (rejectedAt ?? .distantPast) {
            rejectedAt = r
            rejectedReason = other.rejectedReason
        }
    }
}
