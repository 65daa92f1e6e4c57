import Foundation
import Testing
@testable import HeraldCrypto

@Suite struct PrivateKeyTests {
    @Test func p8MadeByOpenSSLLoadsAsP256AndItsSignatureVerifiesWithOpenSSL() async throws {
        let directory = try TemporaryDirectory()
        let p8 = try await opensslP8()
        let keyPath = try directory.write("AuthKey.p8", p8)
        let key = try PrivateKey(pemFile: keyPath)
        #expect(key.algorithm.isP256)

        let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNIn0".utf8)
        let raw = try key.signES256(message)
        #expect(raw.count == 64)
        try directory.write("message", message)
        try directory.write("signature.der", try #require(ECDSASignature.der(fromRaw: raw)))
        try await opensslOK(["pkey", "-in", keyPath, "-pubout", "-out", directory.file("public.pem")])
        let verified = try await openssl(["dgst", "-sha256", "-verify", directory.file("public.pem"),
                                    "-signature", directory.file("signature.der"), directory.file("message")])
        #expect(verified.status == 0 && verified.text.contains("Verified OK"))
    }

    @Test func traditionalECPEMLoads() async throws {
        let traditional = try await opensslOK(["ecparam", "-name", "prime256v1", "-genkey", "-noout"]).text
        #expect(traditional.contains("BEGIN EC PRIVATE KEY"))
        let key = try PrivateKey(pem: traditional)
        #expect(key.algorithm == .ec(curve: "prime256v1"))
    }

    @Test func encryptedPKCS8NeedsTheRightPassphrase() async throws {
        let p8 = try await opensslP8()
        let encrypted = try await opensslOK(["pkcs8", "-topk8", "-v2", "aes-256-cbc", "-passout", "pass:WenderCastPush"],
                                      input: Array(p8.utf8)).text
        #expect(encrypted.contains("BEGIN ENCRYPTED PRIVATE KEY"))

        let key = try PrivateKey(pem: encrypted, passphrase: "WenderCastPush")
        #expect(key.publicKey == (try PrivateKey(pem: p8)).publicKey)
        #expect(throws: CryptoError.wrongPassphrase(what: "the private key")) {
            try PrivateKey(pem: encrypted, passphrase: "1234")
        }
        #expect(throws: CryptoError.passphraseRequired(what: "the private key")) {
            try PrivateKey(pem: encrypted)
        }
    }

    @Test func legacyEncryptedRSAPEMWithProcTypeLoads() async throws {
        let rsa = try await opensslOK(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        let encrypted = try await opensslOK(["rsa", "-traditional", "-aes256", "-passout", "pass:1234"], input: rsa.output).text
        #expect(encrypted.contains("Proc-Type: 4,ENCRYPTED"))
        let key = try PrivateKey(pem: encrypted, passphrase: "1234")
        #expect(key.algorithm == .rsa(bits: 1024))
        #expect(throws: CryptoError.wrongPassphrase(what: "the private key")) {
            try PrivateKey(pem: encrypted, passphrase: "4321")
        }
    }

    @Test func exportedEncryptedPKCS8OpensWithOpenSSLAndRoundTrips() async throws {
        let directory = try TemporaryDirectory()
        let key = try PrivateKey.generateP256()
        let pem = try key.pkcs8PEM(passphrase: "s3cret")
        #expect(pem.contains("BEGIN ENCRYPTED PRIVATE KEY"))
        let path = try directory.write("key.pem", pem)
        let publicFromCLI = try await opensslOK(["pkey", "-in", path, "-passin", "pass:s3cret", "-pubout"]).text
        #expect(try PublicKey(pem: publicFromCLI) == key.publicKey)
        #expect(try PrivateKey(pem: pem, passphrase: "s3cret").publicKey == key.publicKey)

        let plain = try key.pkcs8PEM()
        #expect(plain.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try PrivateKey(pem: plain).publicKey == key.publicKey)
    }

    @Test func publicKeyPEMIsWhatOpenSSLDerives() async throws {
        let directory = try TemporaryDirectory()
        let key = try PrivateKey.generateP256()
        let path = try directory.write("key.pem", try key.pkcs8PEM())
        let cli = try await opensslOK(["pkey", "-in", path, "-pubout"]).text
        #expect(key.publicKey.pem == cli)
        #expect(try PublicKey(der: key.publicKey.der) == key.publicKey)
        #expect(try PrivateKey.generateP256().publicKey != key.publicKey)
    }

    @Test func nonP256KeysAreRefusedForES256() async throws {
        let rsa = try PrivateKey.generateRSA(bits: 1024)
        #expect(throws: CryptoError.unsupportedKey(expected: "EC P-256 (ES256)", found: "RSA 1024-bit")) {
            try rsa.signES256([1, 2, 3])
        }
        let p384 = try PrivateKey(pem: try await opensslOK(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]).text)
        #expect(p384.algorithm == .ec(curve: "secp384r1"))
        #expect(throws: CryptoError.self) { try p384.signES256([1, 2, 3]) }
        #expect(!p384.publicKey.verifyES256(signature: [UInt8](repeating: 1, count: 64), message: [1, 2, 3]))
    }

    @Test func textWithoutAKeyIsNotAKey() async throws {
        let ca = try CertificateAuthority.makeSelfSigned(now: fixedNow)
        #expect(throws: CryptoError.notAKey(detail: "the text has no 'BEGIN ... PRIVATE KEY' block")) {
            try PrivateKey(pem: ca.certificate.pem)
        }
        let damaged = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
        #expect {
            try PrivateKey(pem: damaged)
        } throws: { error in
            guard case .notAKey = error as? CryptoError else { return false }
            return true
        }
        #expect(throws: CryptoError.self) { try PrivateKey(der: [0x30, 0x03, 0x02, 0x01, 0x00]) }
    }

    @Test func missingFileSaysWhichFile() async throws {
        let directory = try TemporaryDirectory()
        #expect {
            try PrivateKey(pemFile: directory.file("AuthKey_MISSING.p8"))
        } throws: { error in
            guard case .fileUnreadable(let path, _) = error as? CryptoError else { return false }
            return path.hasSuffix("AuthKey_MISSING.p8")
        }
    }

    @Test func derPrivateKeyLoads() async throws {
        let directory = try TemporaryDirectory()
        let key = try PrivateKey.generateP256()
        let path = try directory.write("key.pem", try key.pkcs8PEM())
        let der = try await opensslOK(["pkey", "-in", path, "-outform", "DER"]).output
        #expect(try PrivateKey(der: der).publicKey == key.publicKey)
    }
}
