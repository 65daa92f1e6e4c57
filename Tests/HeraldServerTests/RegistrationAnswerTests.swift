import Foundation
import Testing
import HeraldJSON
import HeraldStore
@testable import HeraldServer

/// A registration is answered from what it wrote (not read back), written member by member: the answer
/// must be byte for byte what a read of the installation gives.
@Suite struct RegistrationAnswerTests {
    @Test func theAnswerToARegistrationIsWhatAReadGives() async throws {
        let t = try await TestService()
        let app = try await t.createApp(withCredentials: false)
        // Tags in no order, differing in case, beyond ASCII (a composed and a decomposed é), one twice.
        let tags: JSON = ["news", "Zeta", "alpha", "caf\u{e9}", "cafe\u{301}", "news", "_x"]
        let registered = await t.call("POST", "/v1/installations", key: app.client, json: [
            "installationId": "i-1", "deviceToken": .string(token(1)), "tags": tags, "alias": "al", "badge": 3,
            "locale": "fr-FR", "properties": ["plan": "pro", "age": 3, "beta": true],
        ])
        #expect(registered.status == 201)
        let id = try #require(registered.body["id"]?.stringValue)
        let read = await t.call("GET", "/v1/installations/\(id)", key: app.master)
        #expect(read.status == 200)
        #expect(registered.text == read.text)

        // An update that leaves the tags alone answers with the stored ones.
        let updated = await t.call("POST", "/v1/installations", key: app.client, json: ["installationId": "i-1", "badge": 4])
        #expect(updated.status == 200)
        #expect(updated.body["tags"] == registered.body["tags"])
        #expect(updated.text == (await t.call("GET", "/v1/installations/\(id)", key: app.master)).text)

        // A new installation without tags has none.
        let bare = await t.call("POST", "/v1/installations", key: app.client, json: ["installationId": "i-2"])
        #expect(bare.status == 201)
        #expect(bare.body["tags"] == [])
    }

    @Test func theInstallationIsWrittenWithItsKeysSorted() throws {
        let record = InstallationRecord(seq: 1, id: "id-1", appID: "app", installationID: "i-1", deviceToken: token(2), environment: "production",
                                        topic: "com.example.app", tags: ["b", "a"], alias: "al", userID: "u", locale: "de", timeZone: "Europe/Berlin",
                                        badge: 12, appVersion: "1.2", osVersion: "18.1", deviceModel: "iPhone16,1",
                                        properties: #"{"z":1,"a":{"y":2,"b":[1,"x"]}}"#, active: false, inactiveReason: "Unregistered",
                                        inactiveAt: start, createdAt: start, updatedAt: start.addingTimeInterval(1.5),
                                        lastSeenAt: start.addingTimeInterval(2), tokenUpdatedAt: start)
        let bytes = InstallationInput.jsonBytes(record)
        // `JSON` sorts every object's keys when it writes; the bytes written member by member must match.
        let parsed = try #require(try? JSON(parsing: bytes))
        #expect(parsed.bytes == bytes)
        guard case .object(let members) = parsed.jsonValue else { Issue.record("not an object"); return }
        #expect(members.count == 21)
        #expect(parsed["badge"] == 12 && parsed["active"] == false && parsed["tags"] == ["b", "a"] && parsed["topic"] == "com.example.app")
        #expect(parsed["updatedAt"]?.stringValue == ISO8601.string(start.addingTimeInterval(1.5)))
        #expect(parsed["properties"] == ["a": ["b": [1, "x"], "y": 2], "z": 1])

        // A page holds each installation as it is written alone, and the cursor.
        let page = InstallationInput.pageBytes([record, record], next: "7")
        let parsedPage = try #require(try? JSON(parsing: page))
        #expect(parsedPage.bytes == page)
        #expect(parsedPage["installations"] == [parsed, parsed] && parsedPage["nextCursor"] == "7")
        #expect((try? JSON(parsing: InstallationInput.pageBytes([], next: nil))) == ["installations": [], "nextCursor": nil])
    }
}
