import Foundation
import Testing
import HeraldCrypto

@Suite struct ES256Tests {
    @Test func rawAndDERSignaturesBothVerifyAndTamperedOnesFail() async throws {
        let key = try PrivateKey.generateP256()
        let publicKey = try PublicKey(pem: key.publicKey.pem)
        let message = Array("header.claims".utf8)
        let raw = try key.signES256(message)
        let der = try #require(ECDSASignature.der(fromRaw: raw))
        #expect(der.first == 0x30)
        #expect(ECDSASignature.raw(fromDER: der) == raw)

        #expect(publicKey.verifyES256(signature: raw, message: message))
        #expect(publicKey.verifyES256(signature: der, message: message))

        var tamperedRaw = raw
        tamperedRaw[10] ^= 0x01
        #expect(!publicKey.verifyES256(signature: tamperedRaw, message: message))
        var tamperedDER = der
        tamperedDER[der.count - 1] ^= 0x01
        #expect(!publicKey.verifyES256(signature: tamperedDER, message: message))
        #expect(!publicKey.verifyES256(signature: raw, message: Array("header.claimz".utf8)))
        #expect(!publicKey.verifyES256(signature: Array(raw.prefix(63)), message: message))
        #expect(!publicKey.verifyES256(signature: [], message: message))
        #expect(!(try PrivateKey.generateP256()).publicKey.verifyES256(signature: raw, message: message))
        // Failures leave the reused verification context usable.
        #expect(publicKey.verifyES256(signature: raw, message: message))
    }

    @Test func signatureMadeByOpenSSLVerifiesInBothEncodings() async throws {
        let directory = try TemporaryDirectory()
        let keyPath = try directory.write("key.p8", try await opensslP8())
        let messagePath = try directory.write("message", "eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyMyJ9.eyJpc3MiOiJERUYifQ")
        let der = try await opensslOK(["dgst", "-sha256", "-sign", keyPath, messagePath]).output
        let publicKey = try PublicKey(pem: try await opensslOK(["pkey", "-in", keyPath, "-pubout"]).text)
        let message = try directory.read("message")

        #expect(publicKey.verifyES256(signature: der, message: message))
        let raw = try #require(ECDSASignature.raw(fromDER: der))
        #expect(raw.count == 64)
        #expect(publicKey.verifyES256(signature: raw, message: message))
    }

    @Test func nonCanonicalDERIsNotConverted() async throws {
        let key = try PrivateKey.generateP256()
        let der = try #require(ECDSASignature.der(fromRaw: try key.signES256([1])))
        // Trailing garbage after the SEQUENCE.
        #expect(ECDSASignature.raw(fromDER: der + [0]) == nil)
        #expect(ECDSASignature.raw(fromDER: [0x30, 0x00]) == nil)
        #expect(ECDSASignature.der(fromRaw: [UInt8](repeating: 1, count: 63)) == nil)
    }

    @Test func concurrentSigningAndVerifyingWithOneKeyAllSucceed() async throws {
        let key = try PrivateKey.generateP256()
        let publicKey = key.publicKey
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let message = Array("message \(index)".utf8)
                    guard let signature = try? key.signES256(message) else { return false }
                    return publicKey.verifyES256(signature: signature, message: message)
                        && !publicKey.verifyES256(signature: signature, message: Array("other \(index)".utf8))
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 })
    }

    @Test func signaturesAreRandomizedButAllVerify() async throws {
        let key = try PrivateKey.generateP256()
        let first = try key.signES256([1, 2, 3])
        let second = try key.signES256([1, 2, 3])
        #expect(first != second)
        #expect(key.publicKey.verifyES256(signature: first, message: [1, 2, 3]))
        #expect(key.publicKey.verifyES256(signature: second, message: [1, 2, 3]))
    }
}
