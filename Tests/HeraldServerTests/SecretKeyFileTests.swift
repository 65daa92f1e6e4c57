import Foundation
import Testing
@testable import HeraldServer

@Suite struct SecretKeyFileTests {
    @Test func theGeneratedSealingKeyIsReadableByItsOwnerOnlyAndReusedOnRestart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = HeraldConfiguration()
        configuration.databasePath = directory.appendingPathComponent("herald.sqlite").path
        let key = try HeraldService.secretKey(configuration)
        let path = directory.appendingPathComponent("secret.key").path
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(try HeraldService.secretKey(configuration) == key)
    }
}
