import Foundation
import Testing
@testable import HeraldServer

@Suite struct SecretKeyFileTests {
    @Test func theGeneratedSealingKeyIsReadableByItsOwnerOnlyAndReusedOnRestart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("herald.sqlite")
        let key = try HeraldService.secretKey(HeraldConfiguration(), nextTo: database)
        let path = directory.appendingPathComponent("secret.key").path
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(try HeraldService.secretKey(HeraldConfiguration(), nextTo: database) == key)
    }
}
