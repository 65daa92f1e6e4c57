import Foundation

/// Storage as one file per key in a directory: Application Support on Apple platforms, or any directory
/// you choose (a Linux service, a test's temporary directory).
///
/// Each write replaces its file atomically, so a crash never leaves half a value behind.
public struct FileStorage: KeyValueStorage {
    /// The directory holding the files; created on first write.
    public let directory: URL

    /// Storage in `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// Storage in `<Application Support>/<subdirectory>` of the current user.
    ///
    /// On Apple platforms the directory is excluded from backups: a restored backup on a new phone must
    /// not carry the old phone's installation id.
    public static func applicationSupport(subdirectory: String = "Herald") throws -> FileStorage {
        guard let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first else {
            throw HeraldClientError.storageFailed("no Application Support directory for this user")
        }
        return FileStorage(directory: base.appendingPathComponent(subdirectory, isDirectory: true))
    }

    public func data(forKey key: String) throws -> Data? {
        let file = fileURL(forKey: key)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        do {
            return try Data(contentsOf: file)
        } catch {
            throw HeraldClientError.storageFailed("cannot read \(file.path): \(error.localizedDescription)")
        }
    }

    public func setData(_ data: Data?, forKey key: String) throws {
        let file = fileURL(forKey: key)
        do {
            guard let data else {
                if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
                return
            }
            try createDirectoryIfNeeded()
            try data.write(to: file, options: .atomic)
        } catch {
            throw HeraldClientError.storageFailed(
                "cannot write \(file.path): \(error.localizedDescription); check that the directory is writable")
        }
    }

    private func createDirectoryIfNeeded() throws {
        guard !FileManager.default.fileExists(atPath: directory.path) else { return }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        #if canImport(Darwin)
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var excluded = directory
        try? excluded.setResourceValues(values)
        #endif
    }

    /// Keys become file names; anything outside a safe set is percent-encoded so no key escapes the directory.
    func fileURL(forKey key: String) -> URL {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.")
        let name = key.addingPercentEncoding(withAllowedCharacters: allowed) ?? key
        let safeName = name.hasPrefix(".") ? "%2E" + name.dropFirst() : name
        return directory.appendingPathComponent(safeName + ".json", isDirectory: false)
    }
}
