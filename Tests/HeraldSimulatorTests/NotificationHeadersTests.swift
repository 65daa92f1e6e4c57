import Foundation
import Testing
@testable import HeraldSimulator

@Suite struct NotificationHeadersTests {
    /// Kept as a list for speed, but stored and shown as a JSON object, as the dictionary it replaced was:
    /// data directories written before keep loading.
    @Test func encodesAsAJSONObjectAndReadsOneBack() throws {
        var headers: NotificationHeaders = ["apns-topic": "com.example.app"]
        headers.append("apns-push-type", "alert")
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(headers)) as? [String: String]
        #expect(json == ["apns-topic": "com.example.app", "apns-push-type": "alert"])
        let decoded = try JSONDecoder().decode(NotificationHeaders.self, from: Data(#"{"apns-push-type":"alert","apns-topic":"com.example.app"}"#.utf8))
        #expect(decoded["apns-topic"] == "com.example.app" && decoded["apns-push-type"] == "alert" && decoded["apns-id"] == nil)
        #expect(decoded.dictionary == headers.dictionary)
    }
}
