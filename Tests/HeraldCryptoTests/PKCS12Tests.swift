import Foundation
import Testing
import HeraldCrypto

@Suite struct PKCS12Tests {
    @Test func madeArchiveRoundTripsAndOpenSSLReadsIt() async throws {
        let directory = try TemporaryDirectory()
        let ca = try CertificateAuthority.makeSelfSigned(now: fixedNow)
        let client = try ca.issueAPNsClientCertificate(bundleID: "com.example.app", teamID: "ABCDE12345", now: fixedNow)
        let archive = try PKCS12.make(client, passphrase: "WenderCastPush", friendlyName: "Apple Push Services")

        let loaded = try PKCS12.load(archive, passphrase: "WenderCastPush")
        #expect(loaded.certificate == client.certificate)
        #expect(loaded.chain == [ca.certificate])
        #expect(loaded.privateKey.publicKey == client.privateKey.publicKey)

        let path = try directory.write("push.p12", archive)
        let pem = try await opensslOK(["pkcs12", "-in", path, "-nodes", "-passin", "pass:WenderCastPush"]).text
        #expect(pem.contains("friendlyName: Apple Push Services"))
        #expect(try PrivateKey(pem: pem).publicKey == client.privateKey.publicKey)
        #expect(try Certificate.loadAll(pem: pem).count == 2)
        // Modern algorithms: OpenSSL 3 without -legacy reads it, and the MAC is SHA-256.
        let info = try await opensslOK(["pkcs12", "-in", path, "-info", "-noout", "-passin", "pass:WenderCastPush"])
        #expect(info.error.contains("MAC: sha256"))
        #expect(info.error.contains("AES-256-CBC"))
    }

    @Test func wrongPassphraseIsReported() async throws {
        let ca = try CertificateAuthority.makeSelfSigned(now: fixedNow)
        let client = try ca.issueAPNsClientCertificate(bundleID: "com.example.app", teamID: "T", now: fixedNow)
        let archive = try PKCS12.make(client, passphrase: "right")
        #expect(throws: CryptoError.wrongPassphrase(what: "the PKCS#12 archive")) {
            try PKCS12.load(archive, passphrase: "wrong")
        }
        #expect(throws: CryptoError.self) { try PKCS12.load(Array("not a p12".utf8), passphrase: "right") }
    }

    @Test(arguments: [false, true])
    func archiveMadeByOpenSSLLoads(legacy: Bool) async throws {
        let directory = try TemporaryDirectory()
        try await opensslOK(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem",
                       "-days", "365", "-subj", "/UID=com.example.keychain/CN=Apple Push Services: com.example.keychain"],
                      in: directory)
        var arguments = ["pkcs12", "-export", "-in", "cert.pem", "-inkey", "key.pem", "-out", "cert.p12", "-passout", "pass:1234"]
        // -legacy: RC2-40 and 3DES with a SHA-1 MAC, what older macOS Keychain exports use.
        if legacy { arguments.append("-legacy") }
        let made = try await openssl(arguments, in: directory)
        try #require(made.status == 0 || legacy, "\(made.error)")
        guard made.status == 0 else { return } // this OpenSSL build has no legacy provider
        let identity = try PKCS12.load(file: directory.file("cert.p12"), passphrase: "1234")
        #expect(identity.certificate.subjectUID == "com.example.keychain")
        #expect(identity.privateKey.matches(identity.certificate))
        #expect(identity.chain.isEmpty)
    }

    @Test func emptyPassphraseArchiveLoads() async throws {
        let directory = try TemporaryDirectory()
        let ca = try CertificateAuthority.makeSelfSigned(now: fixedNow)
        let server = try ca.issueServerCertificate(now: fixedNow)
        try directory.write("cert.pem", server.certificate.pem)
        try directory.write("key.pem", try server.privateKey.pkcs8PEM())
        try await opensslOK(["pkcs12", "-export", "-in", "cert.pem", "-inkey", "key.pem", "-out", "empty.p12", "-passout", "pass:"],
                      in: directory)
        let identity = try PKCS12.load(try directory.read("empty.p12"), passphrase: "")
        #expect(identity.certificate == server.certificate)
    }
}
