import Foundation
import Testing
@testable import HeraldClient

/// JPush's name for the installation id: what a migrated app uploads to a backend that targets
/// `audience.registration_id`, so it must be the id the client registers with and survive a restart.
@Suite struct RegistrationIDTests {
    @Test func theRegistrationIDIsTheRegisteredInstallationIDAndOutlivesTheClient() async throws {
        let (server, api) = try makeFakeHerald()
        defer { server.stop() }
        let storage = InMemoryStorage()
        let client = try makeClient(server: server, storage: storage)
        try await client.register(deviceToken: tokenData)

        let sent = try #require(server.requests.first?.json)
        #expect(sent.string("installationId") == client.registrationID, "the server knows the device by this id")
        #expect(api.installation(client.registrationID) != nil)
        #expect(try makeClient(server: server, storage: storage).registrationID == client.registrationID, "kept across launches")
        #expect(try makeClient(server: server).registrationID != client.registrationID, "another installation has its own")
    }
}

/// What Herald's JPush-compatible API delivers, as the app reads it: a JPush `message` arrives as a
/// background push carrying `message`, notification extras sit at the top level, and the push id that
/// open tracking reports is the msg_id.
@Suite struct JPushPayloadTests {
    @Test func aJPushMessageAndItsExtrasReadAsCustomData() throws {
        let push = try PushNotification(jsonData: Data("""
        {"aps":{"content-available":1},"_j_msgid":123456789012345,"herald":{"pushId":"123456789012345"},
         "news_id":134,"message":{"content":"sync now","title":"t","content_type":"text","extras":{"k":"v"}}}
        """.utf8))
        #expect(push.value(at: "message", "content")?.stringValue == "sync now")
        #expect(push.value(at: "message", "extras", "k")?.stringValue == "v")
        #expect(push.value(at: "news_id")?.intValue == 134)
        #expect(push.heraldPushId == "123456789012345")
        #expect(push.isContentAvailable)
    }
}
