import Foundation

/// Where HeraldClient keeps what must survive a relaunch: the installation id, the last state the
/// server acknowledged, and the ids of pushes whose opening was already reported.
///
/// Implementations must be safe to call from any thread. Values are small (a few kilobytes).
public protocol KeyValueStorage: Sendable {
    /// The bytes stored under `key`, or nil when nothing is.
    func data(forKey key: String) throws -> Data?
    /// Stores `data` under `key`, or removes the key when `data` is nil.
    func setData(_ data: Data?, forKey key: String) throws
}

/// Storage that lives as long as the process: for tests and previews, never for an app.
public final class InMemoryStorage: KeyValueStorage, @unchecked Sendable {
    // @unchecked: every access to `values` holds `lock`.
    private let lock = NSLock()
    private var values: [String: Data] = [:]

    public init() {}

    public func data(forKey key: String) throws -> Data? {
        lock.lock()
        defer { lock.unlock() }
        return values[key]
    }

    public func setData(_ data: Data?, forKey key: String) throws {
        lock.lock()
        defer { lock.unlock() }
        values[key] = data
    }
}
