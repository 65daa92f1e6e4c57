import Testing
import COpenSSL
import HeraldCrypto

/// OpenSSL's error queue is per thread, and the TLS layer reads it (SSL_get_error) on its event-loop
/// threads: crypto calls made there, failing or not, must leave it empty.
@Suite struct ErrorQueueTests {
    @Test func loadingAndFailingLeaveTheErrorQueueEmpty() async throws {
        let ca = try CertificateAuthority.makeSelfSigned(now: fixedNow)
        let client = try ca.issueAPNsClientCertificate(bundleID: "com.example.app", teamID: "T", now: fixedNow)
        let combined = ca.certificate.pem + (try client.privateKey.pkcs8PEM(passphrase: "pw")) + client.certificate.pem

        _ = try CertificateIdentity(pem: combined, passphrase: "pw")
        #expect(ERR_peek_error() == 0)
        _ = try? PrivateKey(pem: combined, passphrase: "wrong")
        #expect(ERR_peek_error() == 0)
        _ = try? PublicKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        #expect(ERR_peek_error() == 0)
        _ = try PKCS12.load(try PKCS12.make(client, passphrase: "pw"), passphrase: "pw")
        #expect(ERR_peek_error() == 0)
        _ = try? PKCS12.load([1, 2, 3], passphrase: "pw")
        #expect(ERR_peek_error() == 0)
        _ = client.privateKey.publicKey.verifyES256(signature: [UInt8](repeating: 9, count: 70), message: [1])
        #expect(ERR_peek_error() == 0)
        _ = try? Certificate(der: [0x30, 0x00])
        #expect(ERR_peek_error() == 0)
        _ = client.certificate.isSigned(by: client.certificate)
        #expect(ERR_peek_error() == 0)
    }
}
