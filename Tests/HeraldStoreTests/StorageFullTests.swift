import Foundation
import Synchronization
import Testing
@testable import HeraldSQLite
import HeraldStore
import HeraldTestSupport

/// Writes that fail for lack of space surface as `StoreError.storageFull`, leave stored data intact and
/// succeed again once there is room, on a capped database and on a real full file system.
@Suite struct StoreStorageFullTests {
    /// Inserts installations with bulky properties until the store refuses one; returns the error.
    static func fill(_ store: SQLiteStore, from first: Int = 0) async throws -> any Error {
        for n in first..<(first + 5_000) {
            var d = InstallationDraft(installationID: "fill-\(n)", deviceToken: String(format: "%064x", n), environment: "production")
            d.properties = "{\"note\":\"\(String(repeating: "x", count: 2_000))\"}"
            do {
                _ = try await store.upsertInstallation(appID: "app1", draft: d, match: .installationIDOrToken, newID: UUID().uuidString, now: t0)
            } catch {
                return error
            }
        }
        throw StoreTestFailure("the store never filled")
    }

    @Test func aCappedDatabaseFailsWithStorageFullAndRecovers() async throws {
        let changes = ChangeLog()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let store = try await SQLiteStore(path: dir.appendingPathComponent("herald.sqlite").path, storageChanged: changes.add)
        try await makeApp(store)
        #expect(await store.checkStorage() == nil)
        try await store.database.withWriter { try $0.executeScript("PRAGMA max_page_count = 1") }
        let error = try await Self.fill(store)
        guard case StoreError.storageFull(let detail) = error else { Issue.record("expected storageFull, got \(error)"); return }
        #expect(detail.contains("herald.sqlite"))
        let kept = try await store.installationCount(appID: "app1")
        #expect(kept > 0)
        #expect(await store.checkStorage() != nil)
        #expect(changes.entries == ["full"])

        try await store.database.withWriter { try $0.executeScript("PRAGMA max_page_count = 1073741823") }
        #expect(await store.checkStorage() == nil)
        #expect(changes.entries == ["full", "ok"])
        #expect(try await store.installationCount(appID: "app1") == kept)
        _ = try await register(store, iid: "after", token: "ab")
        #expect(try await store.installationCount(appID: "app1") == kept + 1)
    }

    /// A real full file system: a small tmpfs (CI runs as root; skipped where mounting is not allowed).
    @Test(.enabled(if: TmpfsMount.isAvailable)) func aFullFileSystemFailsWithStorageFullAndRecoversWhenItGrows() async throws {
        let mount = try TmpfsMount(sizeKB: 1_024)
        defer { mount.unmount() }
        let store = try await SQLiteStore(path: mount.path + "/herald.sqlite")
        try await makeApp(store)
        let error = try await Self.fill(store)
        guard case StoreError.storageFull = error else { Issue.record("expected storageFull, got \(error)"); return }
        let kept = try await store.installationCount(appID: "app1")
        #expect(await store.checkStorage() != nil)
        try mount.resize(sizeKB: 8_192)
        #expect(await store.checkStorage() == nil)
        _ = try await register(store, iid: "after", token: "ab")
        #expect(try await store.installationCount(appID: "app1") == kept + 1)
    }
}

final class ChangeLog: Sendable {
    private let lines = Mutex<[String]>([])
    var entries: [String] { lines.withLock { $0 } }
    func add(_ failure: StoreError?) { lines.withLock { $0.append(failure == nil ? "ok" : "full") } }
}

struct StoreTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A tmpfs mounted for one test.
struct TmpfsMount {
    let path: String

    static let isAvailable: Bool = {
        guard getuid() == 0, let probe = try? TmpfsMount(sizeKB: 64) else { return false }
        probe.unmount()
        return true
    }()

    init(sizeKB: Int) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-tmpfs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Self.run(["mount", "-t", "tmpfs", "-o", "size=\(sizeKB)k", "tmpfs", path])
    }

    func resize(sizeKB: Int) throws { try Self.run(["mount", "-o", "remount,size=\(sizeKB)k", path]) }

    func unmount() {
        try? Self.run(["umount", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    static func run(_ arguments: [String]) throws {
        let child = try ChildProcess("/usr/bin/env", arguments, output: .inherit, error: .discard)
        guard child.waitForExit() == 0 else { throw StoreTestFailure("\(arguments.joined(separator: " ")) failed") }
    }
}
