import Foundation
import Testing
import HeraldHTTP
@testable import HeraldServer

/// Installations an import (or a registration) creates get time-ordered ids (UUID version 7), so a large
/// import appends to the id index instead of writing all over it; to clients they stay canonical UUIDs.
@Suite struct ImportTimeOrderedIDsTests {
    @Test(arguments: ServerStore.available)
    func importedInstallationsGetAscendingVersion7IDsInImportOrder(store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        // More lines than one stored batch, so the ids of several batches are compared.
        let count = t.service.store.importBatchSize + 500
        let lines = (0..<count).map { #"{"deviceToken":"\#(token($0 + 1))","tags":["t\#($0 % 3)"]}"# }.joined(separator: "\n")
        let imported = await t.call("POST", "/v1/installations/import", key: app.master, raw: Array(lines.utf8))
        #expect(imported.body["created"] == .int(count) && imported.body["failed"] == 0, "\(imported.text)")
        try await t.register(app, "registered-later", token: token(count + 1))

        var ids: [String] = [], tokens: [String] = []
        var cursor: String? = nil
        repeat {
            let page = await t.call("GET", "/v1/installations?limit=1000" + (cursor.map { "&cursor=\($0)" } ?? ""), key: app.master)
            for item in page.body["installations"]?.arrayValue ?? [] {
                ids.append(item["id"]?.stringValue ?? "")
                tokens.append(item["deviceToken"]?.stringValue ?? "")
            }
            cursor = page.body["nextCursor"]?.stringValue
        } while cursor != nil
        #expect(ids.count == count + 1)
        #expect(tokens == (0...count).map { token($0 + 1) }, "listed in import order")
        #expect(ids == ids.sorted(), "ids ascend in the order the installations were made")
        for id in ids {
            let uuid = try #require(UUID(uuidString: id), "\(id) is a UUID")
            #expect(uuid.uuidString.lowercased() == id)
            #expect(id.dropFirst(14).first == "7", "\(id) is version 7")
        }
    }
}
