import Foundation
import Testing
import HeraldCrypto

@Suite struct CertificateTests {
    @Test func selfSignedCAAndServerCertificateVerifyWithOpenSSL() async throws {
        let directory = try TemporaryDirectory()
        let ca = try CertificateAuthority.makeSelfSigned(commonName: "Test CA", keyType: .rsa(bits: 2048), now: fixedNow)
        #expect(ca.certificate.notBefore == fixedNow)
        #expect(ca.certificate.notAfter == fixedNow + 3650 * 86_400)
        #expect(ca.certificate.subject == "CN=Test CA,O=Herald")
        #expect(ca.certificate.issuer == ca.certificate.subject)
        #expect(ca.certificate.isSigned(by: ca.certificate))

        let server = try ca.issueServerCertificate(now: fixedNow)
        #expect(server.certificate.isSigned(by: ca.certificate))
        #expect(!ca.certificate.isSigned(by: server.certificate))
        #expect(server.certificate.subjectAlternativeNames == ["DNS:localhost", "IP Address:127.0.0.1", "IP Address:0:0:0:0:0:0:0:1"])
        #expect(server.chain == [ca.certificate])

        let caPath = try directory.write("ca.pem", ca.certificate.pem)
        let serverPath = try directory.write("server.pem", server.certificate.pem)
        let atTime = String(Int(fixedNow.timeIntervalSince1970) + 60)
        let verified = try await openssl(["verify", "-attime", atTime, "-purpose", "sslserver", "-CAfile", caPath, serverPath])
        #expect(verified.status == 0, "\(verified.error)")
        let expired = try await openssl(["verify", "-attime", String(Int(fixedNow.timeIntervalSince1970) + 900 * 86_400),
                                   "-CAfile", caPath, serverPath])
        #expect(expired.status != 0)
    }

    @Test func fingerprintSerialAndDatesMatchOpenSSL() async throws {
        let directory = try TemporaryDirectory()
        let ca = try CertificateAuthority.makeSelfSigned(now: fixedNow)
        let path = try directory.write("ca.pem", ca.certificate.pem)
        let fingerprint = try await opensslOK(["x509", "-in", path, "-noout", "-fingerprint", "-sha256"]).text
        let cliHex = fingerprint.split(separator: "=")[1].replacingOccurrences(of: ":", with: "")
            .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        #expect(ca.certificate.fingerprintSHA256Hex == cliHex)

        let serial = try await opensslOK(["x509", "-in", path, "-noout", "-serial"]).text
        #expect(serial.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() == "serial=" + ca.certificate.serialNumberHex)

        let end = try await opensslOK(["x509", "-in", path, "-noout", "-enddate", "-dateopt", "iso_8601"]).text
        let formatter = ISO8601DateFormatter()
        let cliEnd = try #require(formatter.date(from: end.replacingOccurrences(of: "notAfter=", with: "")
            .trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: " ", with: "T")))
        #expect(cliEnd == ca.certificate.notAfter)
        #expect(ca.certificate.isValid(at: fixedNow + 86_400))
        #expect(!ca.certificate.isValid(at: fixedNow - 1))
    }

    @Test func certificateMadeByOpenSSLExposesSubjectUIDAndDERRoundTrips() async throws {
        let directory = try TemporaryDirectory()
        try await opensslOK(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", directory.file("key.pem"),
                       "-out", directory.file("cert.pem"), "-days", "365",
                       "-subj", "/UID=com.example.wendercast/CN=Apple Push Services: com.example.wendercast/OU=ABCDE12345/C=US"])
        let certificate = try Certificate(pemFile: directory.file("cert.pem"))
        #expect(certificate.subjectUID == "com.example.wendercast")
        #expect(certificate.commonName == "Apple Push Services: com.example.wendercast")
        #expect(certificate.organizationalUnit == "ABCDE12345")
        #expect(certificate.subject.contains("UID=com.example.wendercast"))

        let der = try await opensslOK(["x509", "-in", directory.file("cert.pem"), "-outform", "DER"]).output
        #expect(certificate.der == der)
        #expect(try Certificate(der: der) == certificate)
        #expect(try Certificate(pem: certificate.pem) == certificate)
        let key = try PrivateKey(pemFile: directory.file("key.pem"))
        #expect(key.matches(certificate))
        #expect(certificate.publicKey == key.publicKey)
    }

    @Test func loadAllReturnsEveryCertificateOfABundleInOrder() async throws {
        let ca = try CertificateAuthority.makeSelfSigned(now: fixedNow)
        let first = try ca.issueServerCertificate(dnsNames: ["one.test"], ipAddresses: [], now: fixedNow)
        let second = try ca.issueServerCertificate(dnsNames: ["two.test"], ipAddresses: [], now: fixedNow)
        let bundle = first.certificate.pem + "some comment\n" + second.certificate.pem + ca.certificate.pem
        let all = try Certificate.loadAll(pem: bundle)
        #expect(all.map(\.commonName) == ["one.test", "two.test", "Herald Local CA"])
        #expect(try Certificate(pem: bundle).commonName == "one.test")
        #expect(try Certificate.loadAll(pem: "no certificates here").isEmpty)
    }

    @Test func damagedOrMissingCertificatesAreReported() async throws {
        #expect(throws: CryptoError.notACertificate(detail: "the text has no 'BEGIN CERTIFICATE' block")) {
            try Certificate(pem: "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n")
        }
        #expect {
            try Certificate.loadAll(pem: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
        } throws: { error in
            guard case .notACertificate = error as? CryptoError else { return false }
            return true
        }
        #expect(throws: CryptoError.self) { try Certificate(der: [0x30, 0x01, 0x00]) }
    }

    @Test func extensionValueReturnsTheRawDEROfAnExtension() async throws {
        let ca = try CertificateAuthority.makeSelfSigned(now: fixedNow)
        // basicConstraints critical CA:TRUE is SEQUENCE { BOOLEAN TRUE }.
        #expect(ca.certificate.extensionValue(oid: "2.5.29.19") == [0x30, 0x03, 0x01, 0x01, 0xFF])
        #expect(ca.certificate.extensionValue(oid: "1.2.840.113635.100.6.3.6") == nil)
        #expect(ca.certificate.extensionValue(oid: "not an oid") == nil)
    }

    @Test func identityFromCombinedPEMPicksTheLeafMatchingTheKey() async throws {
        let ca = try CertificateAuthority.makeSelfSigned(now: fixedNow)
        let client = try ca.issueAPNsClientCertificate(bundleID: "com.example.app", teamID: "TEAM123456", now: fixedNow)
        // CA first, then an encrypted key, then the leaf: order must not matter.
        let ckPEM = ca.certificate.pem + (try client.privateKey.pkcs8PEM(passphrase: "1234")) + client.certificate.pem
        let identity = try CertificateIdentity(pem: ckPEM, passphrase: "1234")
        #expect(identity.certificate == client.certificate)
        #expect(identity.chain == [ca.certificate])
        #expect(throws: CryptoError.wrongPassphrase(what: "the private key")) {
            try CertificateIdentity(pem: ckPEM, passphrase: "4321")
        }
        let stranger = try PrivateKey.generateP256()
        #expect(throws: CryptoError.keyCertificateMismatch) {
            try CertificateIdentity(privateKey: stranger, certificate: client.certificate)
        }
        let roundTrip = try CertificateIdentity(pem: try identity.pem(passphrase: "pw"), passphrase: "pw")
        #expect(roundTrip.certificate == client.certificate && roundTrip.chain == [ca.certificate])
    }

    @Test func ckPEMMadeByOpenSSLPKCS12NodesLoads() async throws {
        let directory = try TemporaryDirectory()
        let ca = try CertificateAuthority.makeSelfSigned(now: fixedNow)
        let client = try ca.issueAPNsClientCertificate(bundleID: "com.example.app", teamID: "TEAM123456",
                                                       keyType: .rsa(bits: 2048), now: fixedNow)
        try directory.write("cert.pem", client.certificate.pem)
        try directory.write("key.pem", try client.privateKey.pkcs8PEM())
        try await opensslOK(["pkcs12", "-export", "-in", "cert.pem", "-inkey", "key.pem", "-out", "push.p12",
                       "-passout", "pass:WenderCastPush"], in: directory)
        // The seeds' recipe: openssl pkcs12 -in push.p12 -out ck.pem -nodes -clcerts
        try await opensslOK(["pkcs12", "-in", "push.p12", "-out", "ck.pem", "-nodes", "-clcerts",
                       "-passin", "pass:WenderCastPush"], in: directory)
        let ckPEM = try directory.readText("ck.pem")
        #expect(ckPEM.contains("Bag Attributes"))
        let identity = try CertificateIdentity(pemFile: directory.file("ck.pem"))
        #expect(identity.certificate.subjectUID == "com.example.app")
        #expect(identity.privateKey.algorithm == .rsa(bits: 2048))
    }
}
