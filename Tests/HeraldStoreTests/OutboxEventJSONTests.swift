import Foundation
import HeraldJSON
import Testing
@testable import HeraldStore

/// Event data is written as bytes (`EventValue`); whatever a token, reason or id holds, a receiver must parse
/// back exactly what was stored.
@Suite struct OutboxEventJSONTests {
    @Test func eventDataParsesBackToItsFieldsWhateverTheyHold() throws {
        let awkward = "quote \" backslash \\ newline \n tab \t bell \u{7} backspace \u{8} form feed \u{c} nul \u{0} del \u{7f} 推送 🚀 é"
        let event = OutboxEvent.installationRetired(installationID: awkward, deviceToken: "ab01", reason: "Unregistered",
                                                    timestamp: Date(timeIntervalSince1970: 1_800_000_000.25), pushID: "p-1")
        let data = try JSONValue(parsing: event.data)
        #expect(data["installationId"]?.stringValue == awkward)
        #expect(data["deviceToken"]?.stringValue == "ab01" && data["pushId"]?.stringValue == "p-1")
        #expect(data["timestamp"]?.stringValue == "2027-01-15T08:00:00.250Z")
        #expect(data.objectValue?.map(\.key) == ["installationId", "deviceToken", "reason", "timestamp", "pushId"], "fields in their order")

        let failed = OutboxEvent.deliveryFailed(pushID: "p-1", installationID: "i", deviceToken: "t", reason: "BadDeviceToken", status: nil)
        #expect(failed.data == #"{"pushId":"p-1","installationId":"i","deviceToken":"t","reason":"BadDeviceToken","status":null}"#)
        let opened = OutboxEvent.opened(pushID: "p", installationID: "i", at: Date(timeIntervalSince1970: 0))
        #expect(try JSONValue(parsing: opened.data)["openedAt"]?.stringValue == "1970-01-01T00:00:00.000Z")
    }
}
