import Foundation
import Testing
import HeraldTestSupport
import HeraldHTTP
@testable import HeraldServer

/// A LeanCloud `_Installation` export as the data export writes it (one object per line), with what real
/// ones hold: iOS and Android rows, a token LeanCloud kept though APNs would refuse it, dates as strings and
/// as `{"__type": "Date"}`, custom columns (a pointer, a date, numbers), an installation marked `valid: false`.
enum LeanCloudExport {
    static let ios1 = "5f1a2b3c4d5e6f7a8b9c0d01", ios2 = "5f1a2b3c4d5e6f7a8b9c0d02", ios3 = "5f1a2b3c4d5e6f7a8b9c0d03"
    static let retired = "5f1a2b3c4d5e6f7a8b9c0d04", tokenOnly = "5f1a2b3c4d5e6f7a8b9c0d05"

    /// The rows in file order; line n of the file is `rows[n - 1]`.
    static let rows: [String] = [
        #"{"objectId":"\#(ios1)","installationId":"3C1F8A1E-6B51-4C4B-9E5E-2D7D2C1B0A01","deviceToken":"\#(token(101))","deviceType":"ios","channels":["news","vip"],"timeZone":"Asia/Shanghai","badge":3,"deviceProfile":"prod-cert","apnsTopic":"com.example.demo","apnsTeamId":"TEAM123456","localeIdentifier":"zh-Hans-CN","appVersion":"2.4.1","valid":true,"createdAt":"2024-03-01T08:00:00.000Z","updatedAt":"2026-06-01T10:00:00.000Z","ACL":{"*":{"read":true,"write":true}},"level":7,"vip":true,"user":{"__type":"Pointer","className":"_User","objectId":"65aa00bb11cc22dd33ee44ff"},"lastLogin":{"__type":"Date","iso":"2026-05-30T21:15:00.000Z"}}"#,
        #"{"objectId":"6a0b1c2d3e4f5a6b7c8d9e01","installationId":"a1b2c3d4e5f60718293a4b5c6d7e8f90","deviceType":"android","channels":["news"],"timeZone":"Asia/Shanghai","valid":true,"createdAt":"2024-04-01T08:00:00.000Z","updatedAt":"2026-06-01T10:00:00.000Z"}"#,
        #"{"objectId":"\#(ios2)","installationId":"7D2E9B3F-1A2B-4C3D-8E4F-5A6B7C8D9E02","deviceToken":"\#(token(102))","deviceType":"ios","channels":[],"timeZone":"Europe/Paris","badge":0,"createdAt":{"__type":"Date","iso":"2025-01-15T12:00:00.000Z"},"updatedAt":{"__type":"Date","iso":"2026-01-15T12:00:00.000Z"}}"#,
        #"{"objectId":"5f1a2b3c4d5e6f7a8b9c0d06","installationId":"0F1E2D3C-4B5A-6978-8796-A5B4C3D2E106","deviceToken":"not-a-hex-token","deviceType":"ios","createdAt":"2024-03-01T08:00:00.000Z","updatedAt":"2024-03-01T08:00:00.000Z"}"#,
        #"{"objectId":"\#(retired)","installationId":"9A8B7C6D-5E4F-4A3B-2C1D-0E9F8A7B6C04","deviceToken":"\#(token(104))","deviceType":"ios","channels":["news"],"valid":false,"createdAt":"2023-11-11T11:11:11.000Z","updatedAt":"2025-12-24T18:00:00.000Z"}"#,
        #"{"objectId":"6a0b1c2d3e4f5a6b7c8d9e02","installationId":"b1c2d3e4f5a60718293a4b5c6d7e8f91","deviceType":"android","valid":true}"#,
        #"{"objectId":"bad/objectId","deviceToken":"\#(token(107))","deviceType":"ios"}"#,
        "",
        #"{"objectId":"\#(tokenOnly)","deviceToken":"\#(token(105))","deviceType":"ios","channels":["sports"],"createdAt":"2025-07-07T07:07:07.000Z","updatedAt":"not a date"}"#,
        #"{"objectId":"\#(ios3)","deviceToken":"\#(token(103))","deviceType":"ios","channels":["sports"]}"#,
    ]

    static var jsonLines: String { rows.joined(separator: "\n") + "\n" }

    /// The same rows as LeanCloud's REST answer `{"results": [...]}`, pretty-printed.
    static var results: String {
        "{\n  \"results\": [\n" + rows.filter { !$0.isEmpty }.map { "    " + $0 }.joined(separator: ",\n") + "\n  ],\n  \"count\": 9\n}\n"
    }
}

@Suite struct LeanCloudImportTests {
    @Test(arguments: ServerStore.available)
    func aLeanCloudExportImportsItsIOSRowsWithTheirObjectIDs(store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp("from LeanCloud")
        let reply = await t.call("POST", "/v1/installations/import?format=leancloud", key: app.master, raw: Array(LeanCloudExport.jsonLines.utf8))
        #expect(reply.status == 200)
        #expect(reply.body["created"] == 4 && reply.body["updated"] == 0 && reply.body["skipped"] == 2 && reply.body["failed"] == 3, "\(reply.text)")
        let errors = reply.body["errors"]?.arrayValue ?? []
        #expect(errors.compactMap { $0["line"]?.intValue } == [4, 7, 9])
        #expect(errors.compactMap { $0["field"]?.stringValue } == ["deviceToken", "objectId", "updatedAt"])
        #expect(errors.first?["message"]?.stringValue?.contains("not an APNs device token") == true)

        // The objectId is the installation's id; the LeanCloud columns land in Herald's fields.
        let first = await t.call("GET", "/v1/installations/\(LeanCloudExport.ios1)", key: app.master)
        #expect(first.status == 200)
        #expect(first.body["id"]?.stringValue == LeanCloudExport.ios1)
        #expect(first.body["installationId"]?.stringValue == "3C1F8A1E-6B51-4C4B-9E5E-2D7D2C1B0A01")
        #expect(first.body["deviceToken"]?.stringValue == token(101))
        #expect(first.body["tags"] == ["news", "vip"])
        #expect(first.body["timeZone"] == "Asia/Shanghai" && first.body["badge"] == 3 && first.body["locale"] == "zh-Hans-CN")
        #expect(first.body["topic"] == "com.example.demo" && first.body["appVersion"] == "2.4.1" && first.body["active"] == true)
        #expect(first.body["createdAt"] == "2024-03-01T08:00:00.000Z")
        #expect(await t.call("GET", "/v1/installations/\(LeanCloudExport.ios2)", key: app.master).body["createdAt"] == "2025-01-15T12:00:00.000Z")
        let properties = try #require(first.body["properties"])
        #expect(properties["deviceProfile"] == "prod-cert" && properties["apnsTeamId"] == "TEAM123456")
        #expect(properties["level"] == 7 && properties["vip"] == true && properties["lastLogin"] == "2026-05-30T21:15:00.000Z")
        #expect(properties["user"]?.stringValue?.contains("65aa00bb11cc22dd33ee44ff") == true)
        #expect(properties["ACL"] == nil)

        // valid=false: kept, inactive, from LeanCloud's last update.
        let retired = await t.call("GET", "/v1/installations/\(LeanCloudExport.retired)", key: app.master)
        #expect(retired.body["active"] == false && retired.body["inactiveReason"] == "LeanCloud: valid=false")
        #expect(retired.body["inactiveAt"] == "2025-12-24T18:00:00.000Z")
        // A row without installationId is found by its objectId too (it became its installationId).
        #expect(await t.call("GET", "/v1/installations/\(LeanCloudExport.ios3)", key: app.master).body["tags"] == ["sports"])

        // Importing again updates in place and keeps the ids.
        let again = await t.call("POST", "/v1/installations/import?format=leancloud", key: app.master, raw: Array(LeanCloudExport.jsonLines.utf8))
        #expect(again.body["created"] == 0 && again.body["updated"] == 4, "\(again.text)")
        #expect(await t.call("GET", "/v1/installations/\(LeanCloudExport.ios2)", key: app.master).body["id"]?.stringValue == LeanCloudExport.ios2)
    }

    /// The point of keeping objectIds: an app from the App Store registers again through the LeanCloud
    /// route, by installationId or (iOS SDKs) by deviceToken alone, and gets back the objectId it stored.
    @Test(arguments: ServerStore.available)
    func anImportedInstallationRegisteringAgainKeepsItsObjectID(store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp("from LeanCloud")
        _ = await t.call("POST", "/v1/installations/import?format=leancloud", key: app.master, raw: Array(LeanCloudExport.jsonLines.utf8))
        let byInstallationID = await t.call("POST", "/1.1/installations", key: app.client, json: [
            "deviceType": "ios", "installationId": "3C1F8A1E-6B51-4C4B-9E5E-2D7D2C1B0A01", "deviceToken": .string(token(101)),
            "channels": ["news", "vip", "beta"], "timeZone": "Asia/Shanghai",
        ])
        #expect(byInstallationID.status == 200, "\(byInstallationID.text)")
        #expect(byInstallationID.body["objectId"]?.stringValue == LeanCloudExport.ios1)
        let byToken = await t.call("POST", "/1.1/installations", key: app.client, json: [
            "deviceType": "ios", "deviceToken": .string(token(103)), "channels": ["sports"],
        ])
        #expect(byToken.status == 200, "\(byToken.text)")
        #expect(byToken.body["objectId"]?.stringValue == LeanCloudExport.ios3)
        #expect(try await t.service.store.installationCount(appID: app.id) == 4)
    }

    /// LeanCloud's REST shape, pretty-printed: rows are numbered by their line and their place in `results`.
    @Test func theResultsFormImportsTheSameRows() async throws {
        let t = try await TestService()
        let app = try await t.createApp("from LeanCloud")
        let reply = await t.call("POST", "/v1/installations/import?format=leancloud", key: app.master, raw: Array(LeanCloudExport.results.utf8))
        #expect(reply.body["created"] == 4 && reply.body["skipped"] == 2 && reply.body["failed"] == 3, "\(reply.text)")
        let errors = reply.body["errors"]?.arrayValue ?? []
        #expect(errors.compactMap { $0["record"]?.intValue } == [4, 7, 8])
        #expect(errors.compactMap { $0["line"]?.intValue } == [6, 9, 10])
        #expect(await t.call("GET", "/v1/installations/\(LeanCloudExport.ios2)", key: app.master).status == 200)
    }

    /// The same export into a second app: its objectIds are taken, so its rows get new ids, and nothing fails.
    @Test func aSecondAppImportingTheSameExportGetsNewIDs() async throws {
        let t = try await TestService()
        let first = try await t.createApp("first")
        let second = try await t.createApp("second")
        _ = await t.call("POST", "/v1/installations/import?format=leancloud", key: first.master, raw: Array(LeanCloudExport.jsonLines.utf8))
        let reply = await t.call("POST", "/v1/installations/import?format=leancloud", key: second.master, raw: Array(LeanCloudExport.jsonLines.utf8))
        #expect(reply.body["created"] == 4 && reply.body["failed"] == 3, "\(reply.text)")
        let installation = await t.call("GET", "/v1/installations/3C1F8A1E-6B51-4C4B-9E5E-2D7D2C1B0A01", key: second.master)
        #expect(installation.status == 200)
        #expect(installation.body["id"]?.stringValue != LeanCloudExport.ios1)
        #expect(await t.call("GET", "/v1/installations/\(LeanCloudExport.ios1)", key: first.master).status == 200)
    }

    @Test func exportRefusesTheLeanCloudFormat() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        let reply = await t.call("GET", "/v1/installations/export?format=leancloud", key: app.master)
        #expect(reply.status == 400 && reply.errorField == "format")
    }
}

/// The export arrives in pieces cut anywhere; objects must come out as if the file were read whole.
@Suite struct JSONObjectSplitterTests {
    func split(_ text: String, pieceSize: Int, max: Int = 1 << 20) -> [JSONObjectSplitter.Record] {
        var splitter = JSONObjectSplitter(maxRecordBytes: max)
        let bytes = Array(text.utf8)
        var records: [JSONObjectSplitter.Record] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + pieceSize)
            records += splitter.push(Array(bytes[start..<end]))
            start = end
        }
        return records + splitter.finish()
    }

    @Test(arguments: [1, 2, 7, 4096])
    func theResultsFormYieldsEachObjectWhateverItsStringsHold(pieceSize: Int) {
        let text = "\u{FEFF}{ \"results\" : [\n  {\"a\": \"} ] { \\\" [\", \"b\": [1, {\"c\": 2}]},\n  {\"d\": {}}\n], \"count\": 2, \"x\": [{\"e\": 1}]}"
        let records = split(text, pieceSize: pieceSize)
        #expect(records.map { String(decoding: $0.bytes, as: UTF8.self) } == [#"{"a": "} ] { \" [", "b": [1, {"c": 2}]}"#, #"{"d": {}}"#])
        #expect(records.map(\.line) == [2, 3] && records.map(\.index) == [1, 2])
    }

    @Test(arguments: [1, 3, 4096])
    func aJSONArrayAndJSONLinesWork(pieceSize: Int) {
        #expect(split("[{\"a\":1},{\"b\":2}]", pieceSize: pieceSize).map(\.bytes.count) == [7, 7])
        let lines = split("{\"results\":1}\n\n{\"b\":2}", pieceSize: pieceSize)
        #expect(lines.map { String(decoding: $0.bytes, as: UTF8.self) } == ["{\"results\":1}", "{\"b\":2}"])
        #expect(lines.map(\.line) == [1, 3] && lines.map(\.index) == [1, 2])
    }

    /// Pages of LeanCloud's Scan API saved one after another, then an array and a JSON line.
    @Test(arguments: [1, 4, 4096])
    func documentsOneAfterAnotherAreAllRead(pieceSize: Int) {
        let text = "{\"results\":[{\"a\":1}],\"cursor\":\"x]}\"}\n{\"results\":[{\"b\":2},{\"c\":3}],\"cursor\":null}\n[{\"d\":4}]\n{\"e\":5}\n"
        let records = split(text, pieceSize: pieceSize)
        #expect(records.map { String(decoding: $0.bytes, as: UTF8.self) } == [#"{"a":1}"#, #"{"b":2}"#, #"{"c":3}"#, #"{"d":4}"#, #"{"e":5}"#])
        #expect(records.map(\.line) == [1, 2, 2, 3, 4] && records.map(\.index) == [1, 2, 3, 4, 5])
    }

    @Test func elementsThatAreNotObjectsAndACutOffFileAreReported() {
        let records = split("{\"results\":[{\"a\":1}, 42, \"text\", [1,2], {\"b\":\n", pieceSize: 5)
        #expect(records.map(\.index) == [1, 2, 3, 4, 5])
        #expect(records.map { $0.problem == nil } == [true, false, false, false, false])
        #expect(records.last?.problem?.contains("ends inside") == true && records.last?.line == 1)
    }

    /// Hostile bytes: nothing held past the limits, whatever the input and however it is cut.
    @Test(arguments: 0..<40)
    func randomBytesNeverGrowARecordPastTheLimit(seed: Int) {
        var generator = SeededRandom(seed: UInt64(seed))
        let alphabet = Array("{}[]\",:\\ \n\"resultsab1".utf8) + [0xEF, 0xBB, 0xBF, 0x00, 0xFF]
        let text = (0..<4000).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
        var splitter = JSONObjectSplitter(maxRecordBytes: 64)
        var records: [JSONObjectSplitter.Record] = []
        var start = 0
        while start < text.count {
            let end = min(text.count, start + 1 + Int(generator.next() % 97))
            records += splitter.push(Array(text[start..<end]))
            start = end
        }
        records += splitter.finish()
        #expect(records.allSatisfy { $0.bytes.count <= 64 })
        #expect(records.map(\.index) == Array(records.indices.map { $0 + 1 }))
    }

    /// 400 KiB of spaces before anything: past 64 KiB they are taken as the start of a JSON line, which has
    /// its own limit (so that line is reported as too long), instead of being held to tell the form.
    @Test func whitespaceBeforeAnyFormIsNotHeld() {
        var splitter = JSONObjectSplitter(maxRecordBytes: 64)
        for _ in 0..<100 { #expect(splitter.push(Array(repeating: 0x20, count: 4096)).isEmpty) }
        let records = splitter.push(Array("{\"a\":1}\n{\"b\":2}\n".utf8))
        #expect(records.map(\.truncated) == [true, false])
    }

    @Test func anObjectOverTheLimitIsCutAndFlagged() {
        let records = split("[{\"a\":\"" + String(repeating: "x", count: 100) + "\"}, {\"b\":1}]", pieceSize: 16, max: 32)
        #expect(records.map(\.truncated) == [true, false])
        #expect(records.first?.bytes.count == 32)
    }
}
