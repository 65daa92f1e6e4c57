import Foundation
import Testing
import HeraldCrypto

@Suite struct APNsCertificateTests {
    @Test func issuedClientCertificateCarriesUIDTopicsAndBothEnvironments() async throws {
        let ca = try CertificateAuthority.makeSelfSigned(now: fixedNow)
        let client = try ca.issueAPNsClientCertificate(bundleID: "com.example.app", teamID: "ABCDE12345", now: fixedNow)
        let certificate = client.certificate
        #expect(certificate.subjectUID == "com.example.app")
        #expect(certificate.commonName == "Apple Push Services: com.example.app")
        #expect(certificate.isSigned(by: ca.certificate))
        #expect(certificate.notAfter == fixedNow + 365 * 86_400)

        let info = try APNsCertificateInfo(certificate)
        #expect(info.bundleID == "com.example.app")
        #expect(info.teamID == "ABCDE12345")
        #expect(info.topicNames == ["com.example.app", "com.example.app.voip", "com.example.app.complication"])
        #expect(info.topics.map(\.kind) == ["app", "voip", "complication"])
        #expect(info.environments == .both)
        #expect(info.allows(topic: "com.example.app.voip"))
        #expect(!info.allows(topic: "com.example.other"))
    }

    @Test func sandboxOnlyAndProductionOnlyCertificatesSaySo() async throws {
        let ca = try CertificateAuthority.makeSelfSigned(now: fixedNow)
        let sandbox = try ca.issueAPNsClientCertificate(bundleID: "com.example.dev", teamID: "T", environments: .sandbox, now: fixedNow)
        let production = try ca.issueAPNsClientCertificate(bundleID: "com.example.prod", teamID: "T", environments: .production,
                                                           now: fixedNow)
        #expect(try APNsCertificateInfo(sandbox.certificate).environments == .sandbox)
        #expect(try APNsCertificateInfo(production.certificate).environments == .production)
        #expect(sandbox.certificate.extensionValue(oid: APNsCertificateInfo.sandboxOID) == [0x05, 0x00])
        #expect(sandbox.certificate.extensionValue(oid: APNsCertificateInfo.productionOID) == nil)
    }

    @Test func singleTopicCertificateHasJustItsBundleID() async throws {
        let ca = try CertificateAuthority.makeSelfSigned(now: fixedNow)
        let client = try ca.issueAPNsClientCertificate(bundleID: "com.example.single", teamID: "T", topics: [], now: fixedNow)
        #expect(client.certificate.extensionValue(oid: APNsCertificateInfo.topicsOID) == nil)
        let info = try APNsCertificateInfo(client.certificate)
        #expect(info.topics == [.init(name: "com.example.single", kind: "app")])
    }

    /// The topics extension written by OpenSSL from pushy's own config (an encoder independent of ours)
    /// decodes, and ours has the same bytes.
    @Test func topicsEncodedByOpenSSLFromPushysConfigDecodeAndMatchOurs() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("apns-extensions.cnf", """
            [ apns_multi_topic_client_extensions ]
            basicConstraints = CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = clientAuth
            1.2.840.113635.100.6.3.6 = ASN1:SEQUENCE:apns_topics
            1.2.840.113635.100.6.3.1 = ASN1:NULL

            [ apns_topics ]
            aps_topics.0 = UTF8String:com.eatthepath.pushy
            aps_topics.1 = SEQWRAP,UTF8String:app
            aps_topics.2 = UTF8String:com.eatthepath.pushy.voip
            aps_topics.3 = SEQWRAP,UTF8String:voip
            aps_topics.4 = UTF8String:com.eatthepath.pushy.complication
            aps_topics.5 = SEQWRAP,UTF8String:complication

            """)
        try await opensslOK(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                       "-keyout", "key.pem", "-out", "cert.pem", "-days", "365",
                       "-subj", "/CN=Apple Push Services: com.eatthepath.pushy/UID=com.eatthepath.pushy",
                       "-extensions", "apns_multi_topic_client_extensions", "-config", "apns-extensions.cnf"],
                      in: directory)
        let certificate = try Certificate(pemFile: directory.file("cert.pem"))
        let info = try APNsCertificateInfo(certificate)
        #expect(info.bundleID == "com.eatthepath.pushy")
        #expect(info.topics == APNsCertificateInfo.Topic.standard(bundleID: "com.eatthepath.pushy"))
        #expect(info.environments == .sandbox)
        #expect(info.teamID == nil)
        #expect(certificate.extensionValue(oid: APNsCertificateInfo.topicsOID)
                == APNsCertificateInfo.encodeTopics(APNsCertificateInfo.Topic.standard(bundleID: "com.eatthepath.pushy")))
    }

    @Test func legacyCommonNameGivesBundleAndEnvironmentWithoutExtensions() async throws {
        let directory = try TemporaryDirectory()
        try await opensslOK(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                       "-keyout", "key.pem", "-out", "cert.pem", "-days", "30",
                       "-subj", "/CN=Apple Production IOS Push Services: com.example.legacy/OU=TEAM"], in: directory)
        let info = try APNsCertificateInfo(try Certificate(pemFile: directory.file("cert.pem")))
        #expect(info.bundleID == "com.example.legacy")
        #expect(info.environments == .production)
        #expect(info.topicNames == ["com.example.legacy"])
    }

    @Test func aCertificateWithoutBundleIDIsNotAnAPNsCertificate() async throws {
        let ca = try CertificateAuthority.makeSelfSigned(now: fixedNow)
        let server = try ca.issueServerCertificate(now: fixedNow)
        #expect {
            try APNsCertificateInfo(server.certificate)
        } throws: { error in
            guard case .invalidArgument(let message) = error as? CryptoError else { return false }
            return message.contains("not an APNs certificate")
        }
    }

    @Test func malformedTopicsExtensionIsRejected() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("bad.cnf", """
            [ bad ]
            1.2.840.113635.100.6.3.6 = ASN1:UTF8String:not-a-sequence

            """)
        try await opensslOK(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                       "-keyout", "key.pem", "-out", "cert.pem", "-days", "30", "-subj", "/UID=com.example.bad",
                       "-extensions", "bad", "-config", "bad.cnf"], in: directory)
        #expect(throws: CryptoError.self) { try APNsCertificateInfo(try Certificate(pemFile: directory.file("cert.pem"))) }
    }

    /// Apple's exact layout is unconfirmed: unknown elements are skipped, a topic without a kind is kept.
    @Test func topicsExtensionWithUnexpectedElementsStillDecodes() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("odd.cnf", """
            [ odd ]
            1.2.840.113635.100.6.3.6 = ASN1:SEQUENCE:topics
            [ topics ]
            t.0 = UTF8String:com.example.odd
            t.1 = SEQWRAP,UTF8String:app
            t.2 = INTEGER:5
            t.3 = UTF8String:com.example.odd.voip

            """)
        try await opensslOK(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                       "-keyout", "key.pem", "-out", "cert.pem", "-days", "30", "-subj", "/UID=com.example.odd",
                       "-extensions", "odd", "-config", "odd.cnf"], in: directory)
        let info = try APNsCertificateInfo(try Certificate(pemFile: directory.file("cert.pem")))
        #expect(info.topics == [.init(name: "com.example.odd", kind: "app"), .init(name: "com.example.odd.voip", kind: "")])
        #expect(info.environments == [])
    }
}
