import Foundation
import HeraldCrypto
import HeraldHTTP
import Testing
@testable import HeraldSimulator

@Suite("Certificate authentication")
struct CertificateAuthTests {
    @Test func issuedCertificateCarriesTheAppItsTopicsAndItsEnvironment() throws {
        let f = try Fixture()
        let identity = try f.simulator.issueClientCertificate(bundleID: Fixture.bundleID, environments: [.sandbox])
        #expect(identity.certificate.subjectUID == Fixture.bundleID)
        #expect(identity.certificate.isSigned(by: try f.simulator.certificateAuthority().certificate))
        let credential = f.simulator.credential(of: identity.certificate)
        #expect(credential == .certificate(CertificateScope(
            bundleID: Fixture.bundleID, topics: [Fixture.bundleID, Fixture.bundleID + ".voip", Fixture.bundleID + ".complication"],
            environments: [.sandbox])))
    }

    @Test func certificateFromAnotherCAIsUnusable() throws {
        let f = try Fixture()
        let foreign = try CertificateAuthority.makeSelfSigned(now: f.clock.now)
        let cert = try foreign.issueAPNsClientCertificate(bundleID: Fixture.bundleID, teamID: "TEAM123456", now: f.clock.now)
        let credential = f.simulator.credential(of: cert.certificate)
        #expect(credential == .unusableCertificate)
        let response = f.send(push(to: f.token), on: ConnectionAuthState(environment: .sandbox, credential: credential))
        #expect(response.status == 403)
        #expect(response.reason == "BadCertificate")
    }

    @Test func productionCertificateOnSandboxIsRefusedAndTheConnectionGoesAway() throws {
        let f = try Fixture()
        let connection = f.certificateConnection(.sandbox, environments: [.production])
        let response = f.send(push(to: f.token), on: connection)
        #expect(response.status == 403)
        #expect(response.reason == "BadCertificateEnvironment")
        #expect(connection.pendingGoAwayReason == "BadCertificateEnvironment")
    }

    @Test func topicsAreCheckedAgainstTheCertificate() throws {
        let f = try Fixture()
        #expect(f.send(push(to: f.token, topic: "com.example.other")).reason == "BadTopic")
        #expect(f.send(push(to: f.token, topic: Fixture.bundleID + ".voip", headers: [("apns-push-type", "voip")])).status == 200)
        // A certificate with several topics needs apns-topic; a single-topic one defaults to its UID.
        #expect(f.send(push(to: f.token, topic: nil)).reason == "MissingTopic")
        let single = f.certificateConnection(topics: [Fixture.bundleID])
        #expect(f.send(push(to: f.token, topic: nil), on: single).status == 200)
        #expect(f.send(push(to: f.token, topic: Fixture.bundleID + ".voip"), on: single).reason == "BadTopic")
    }

    @Test func authorizationHeaderIsIgnoredOnCertificateConnections() throws {
        let f = try Fixture()
        #expect(f.send(push(to: f.token, headers: [("authorization", "bearer nonsense")])).status == 200)
    }

    @Test func certificateForBothEnvironmentsWorksOnBoth() throws {
        let f = try Fixture()
        let prodToken = try f.simulator.install(bundleID: "com.example.two", environment: .production, on: f.device.id).token
        let identity = try f.simulator.issueClientCertificate(bundleID: "com.example.two", environments: [.sandbox, .production])
        let credential = f.simulator.credential(of: identity.certificate)
        let production = ConnectionAuthState(environment: .production, credential: credential)
        #expect(f.send(push(to: prodToken, topic: "com.example.two"), on: production).status == 200)
        #expect(throws: SimulatorError.self) { try f.simulator.issueClientCertificate(bundleID: "bad id!", environments: [.sandbox]) }
        #expect(throws: SimulatorError.self) { try f.simulator.issueClientCertificate(bundleID: "com.example.two", environments: []) }
    }
}
