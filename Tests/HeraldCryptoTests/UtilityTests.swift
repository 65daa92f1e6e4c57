import Foundation
import Testing
import HeraldCrypto

@Suite struct Base64URLTests {
    @Test func encodingMatchesFoundationWithTheURLAlphabetAndNoPadding() {
        for length in 0..<40 {
            let bytes = SecureRandom.bytes(count: length) + [0xFB, 0xFF, 0xFE]
            let foundation = Data(bytes).base64EncodedString()
            #expect(Base64URL.encodeStandard(bytes) == foundation)
            let url = foundation.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == url)
            #expect(Base64URL.decode(url) == bytes)
            #expect(Base64URL.decode(foundation) == bytes)
        }
    }

    @Test(arguments: ["a", "ab=c", "abc===", "ab*d", "ab d", "abc=d", "AB=="])
    func invalidTextIsRejected(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func emptyDecodesToNothing() {
        #expect(Base64URL.decode("") == [])
    }
}

@Suite struct SecretBoxTests {
    @Test func sealedDataOpensAndRevealsNothing() async throws {
        let box = try SecretBox(key: SecureRandom.bytes(count: 32))
        let secret = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n"
        let sealed = box.seal(secret, associatedData: Array("app-42".utf8))
        #expect(sealed.count == SecretBox.nonceSize + secret.utf8.count + SecretBox.tagSize)
        #expect(!String(decoding: sealed, as: UTF8.self).contains("PRIVATE KEY"))
        #expect(try box.openString(sealed, associatedData: Array("app-42".utf8)) == secret)
        #expect(box.seal(secret) != box.seal(secret))
        #expect(try box.open(box.seal([UInt8]())) == [])
    }

    @Test func anyTamperingWrongKeyOrWrongContextFails() async throws {
        let box = try SecretBox(key: SecureRandom.bytes(count: 32))
        let sealed = box.seal(Array("apns passphrase".utf8), associatedData: [1])
        for index in [0, 11, 12, sealed.count - 17, sealed.count - 1] {
            var tampered = sealed
            tampered[index] ^= 0x01
            #expect(throws: CryptoError.authenticationFailed) { try box.open(tampered, associatedData: [1]) }
        }
        #expect(throws: CryptoError.authenticationFailed) { try box.open(Array(sealed.dropLast()), associatedData: [1]) }
        #expect(throws: CryptoError.authenticationFailed) { try box.open(Array(sealed.prefix(20)), associatedData: [1]) }
        #expect(throws: CryptoError.authenticationFailed) { try box.open(sealed, associatedData: [2]) }
        let otherBox = try SecretBox(key: SecureRandom.bytes(count: 32))
        #expect(throws: CryptoError.authenticationFailed) { try otherBox.open(sealed, associatedData: [1]) }
    }

    @Test func keysDerivedFromTheServerSecretAreStableAndPurposeBound() async throws {
        let secret = SecureRandom.hexString(byteCount: 32)
        let sealed = try SecretBox(secret: secret).seal("token")
        #expect(try SecretBox(secret: secret).openString(sealed) == "token")
        #expect(throws: CryptoError.authenticationFailed) { try SecretBox(secret: secret, purpose: "other").open(sealed) }
        #expect(throws: CryptoError.authenticationFailed) { try SecretBox(secret: secret + "x").open(sealed) }
        #expect(throws: CryptoError.self) { try SecretBox(secret: "") }
        #expect(throws: CryptoError.self) { try SecretBox(key: [1, 2, 3]) }
    }
}

@Suite struct DigestAndKeyDerivationTests {
    @Test func sha256AndHMACMatchOpenSSL() async throws {
        let message = SecureRandom.bytes(count: 1000)
        let key = SecureRandom.bytes(count: 40)
        let sha = try await opensslOK(["dgst", "-sha256", "-hex", "-r"], input: message).text
        #expect(sha.hasPrefix(hexOf(Digest.sha256(message))))
        let hmac = try await opensslOK(["mac", "-digest", "SHA256", "-macopt", "hexkey:" + hexOf(key), "HMAC"], input: message).text
        #expect(hmac.lowercased().hasPrefix(hexOf(Digest.hmacSHA256(key: key, message: message))))
        #expect(Digest.sha256(message[...]) == Digest.sha256(message))
    }

    @Test func hkdfAndPBKDF2MatchOpenSSL() async throws {
        let secret = SecureRandom.bytes(count: 32)
        let salt = SecureRandom.bytes(count: 16)
        let hkdf = try await opensslOK(["kdf", "-keylen", "42", "-kdfopt", "digest:SHA256", "-kdfopt", "hexkey:" + hexOf(secret),
                                  "-kdfopt", "hexsalt:" + hexOf(salt), "-kdfopt", "info:herald", "HKDF"]).text
        let ours = KeyDerivation.hkdfSHA256(secret: secret, salt: salt, info: Array("herald".utf8), length: 42)
        #expect(hkdf.replacingOccurrences(of: ":", with: "").trimmingCharacters(in: .whitespacesAndNewlines).lowercased() == hexOf(ours))

        let pbkdf2 = try await opensslOK(["kdf", "-keylen", "32", "-kdfopt", "digest:SHA256", "-kdfopt", "pass:correct horse",
                                    "-kdfopt", "hexsalt:" + hexOf(salt), "-kdfopt", "iter:1000", "PBKDF2"]).text
        let derived = KeyDerivation.pbkdf2SHA256(password: "correct horse", salt: salt, iterations: 1000)
        #expect(pbkdf2.replacingOccurrences(of: ":", with: "").trimmingCharacters(in: .whitespacesAndNewlines).lowercased() == hexOf(derived))
    }

    @Test func randomBytesDifferAndConstantTimeEqualityCompares() {
        let a = SecureRandom.bytes(count: 32)
        let b = SecureRandom.bytes(count: 32)
        #expect(a != b)
        #expect(SecureRandom.hexString(byteCount: 16).count == 32)
        #expect(ConstantTime.equals(a, a))
        #expect(!ConstantTime.equals(a, b))
        #expect(!ConstantTime.equals(a, Array(a.dropLast())))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
        #expect(ConstantTime.equals("hk_live_abc", "hk_live_abc"))
        #expect(!ConstantTime.equals("hk_live_abc", "hk_live_abd"))
    }
}

func hexOf(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
