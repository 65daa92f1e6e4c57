import Foundation
import HeraldJSON
import HeraldStore
import Testing
@testable import HeraldServer

/// A delivery's body is written as bytes around each event's stored data; a receiver must parse back every
/// event's envelope whatever its strings hold, with the data inserted as it was stored.
@Suite struct WebhookBodyTests {
    @Test func theBodyParsesBackToEachEventsEnvelopeAndData() throws {
        let odd = "evt_\"quoted\" \\ back\u{8}space\u{c} 推送 🚀"
        let events = [
            WebhookEvent(id: odd, type: "installation.retired", appID: "app \"1\"", createdAt: Date(timeIntervalSince1970: 1_800_000_000.25),
                         data: OutboxEvent.installationRetired(installationID: "i\n1", deviceToken: "ab", reason: "Unregistered",
                                                               timestamp: nil, pushID: "p").data),
            WebhookEvent(id: "evt_2", type: "push.done", appID: "app1", createdAt: Date(timeIntervalSince1970: 0), data: #"{"pushId":"p"}"#),
        ]
        let body = try JSON(parsing: WebhookSender.body(events))
        let parsed = try #require(body["events"]?.arrayValue)
        #expect(parsed.count == 2)
        #expect(parsed[0]["id"]?.stringValue == odd && parsed[0]["type"]?.stringValue == "installation.retired")
        #expect(parsed[0]["appId"]?.stringValue == "app \"1\"" && parsed[0]["createdAt"]?.stringValue == "2027-01-15T08:00:00.250Z")
        #expect(parsed[0]["data"]?["installationId"]?.stringValue == "i\n1" && parsed[0]["data"]?["timestamp"] == .null)
        #expect(parsed[1]["data"]?["pushId"]?.stringValue == "p" && parsed[1]["createdAt"]?.stringValue == "1970-01-01T00:00:00.000Z")
        let ordered = try JSONValue(parsing: WebhookSender.body(events))   // keeps members in their written order
        #expect(ordered["events"]?.arrayValue?.first?.objectValue?.map(\.key) == ["id", "type", "createdAt", "appId", "data"])
        #expect(try JSON(parsing: WebhookSender.body([])) == ["events": []])
    }
}
