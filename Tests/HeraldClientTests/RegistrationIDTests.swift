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
