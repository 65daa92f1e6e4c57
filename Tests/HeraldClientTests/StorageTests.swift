import Foundation
import Testing
@testable import HeraldClient

@Suite struct StorageTests {
    @Test func fileStorageRoundTripsAndRemovesValues() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let storage = FileStorage(directory: directory.url.appendingPathComponent("nested/store"))
        #expect(try storage.data(forKey: "state") == nil)
        try storage.setData(Data("one".utf8), forKey: "state")
        try storage.setData(Data("two".utf8), forKey: "state")
        #expect(try FileStorage(directory: storage.directory).data(forKey: "state") == Data("two".utf8))
        try storage.setData(nil, forKey: "state")
        #expect(try storage.data(forKey: "state") == nil)
    }

    @Test func fileStorageKeysCannotEscapeTheDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let storage = FileStorage(directory: directory.url.appendingPathComponent("store"))
        try storage.setData(Data("x".utf8), forKey: "../../escape")
        let file = storage.fileURL(forKey: "../../escape")
        #expect(file.deletingLastPathComponent().standardizedFileURL.path == storage.directory.standardizedFileURL.path)
        #expect(try storage.data(forKey: "../../escape") == Data("x".utf8))
    }

    @Test func fileStorageInAnUnwritablePlaceSaysWhere() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let blocker = directory.url.appendingPathComponent("file")
        try Data().write(to: blocker)
        let storage = FileStorage(directory: blocker.appendingPathComponent("sub"))
        #expect {
            try storage.setData(Data("x".utf8), forKey: "k")
        } throws: { error in
            guard case HeraldClientError.storageFailed(let message) = error else { return false }
            return message.contains(blocker.path)
        }
    }

    @Test func userDefaultsStorageRoundTripsUnderItsPrefix() throws {
        let suite = "herald-tests-\(UUID().uuidString)"
        defer { UserDefaults.standard.removePersistentDomain(forName: suite) }
        let storage = UserDefaultsStorage(suiteName: suite)
        try storage.setData(Data("v".utf8), forKey: "state")
        #expect(try storage.data(forKey: "state") == Data("v".utf8))
        #expect(UserDefaults(suiteName: suite)?.data(forKey: "herald.state") == Data("v".utf8))
        try storage.setData(nil, forKey: "state")
        #expect(try storage.data(forKey: "state") == nil)
    }

    @Test func installationIdIsGeneratedOnceAndSurvivesRelaunch() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try TestHTTPServer(listening: false)
        let storage = FileStorage(directory: directory.url)
        let first = try makeClient(server: server, storage: storage)
        let relaunched = try makeClient(server: server, storage: FileStorage(directory: directory.url))
        #expect(first.installationId == relaunched.installationId)
        #expect(UUID(uuidString: first.installationId) != nil)
        let otherDirectory = try TemporaryDirectory()
        defer { otherDirectory.remove() }
        let otherDevice = try makeClient(server: server, storage: FileStorage(directory: otherDirectory.url))
        #expect(otherDevice.installationId != first.installationId)
    }
}
