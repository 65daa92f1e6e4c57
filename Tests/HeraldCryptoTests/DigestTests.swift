import Testing
@testable import HeraldCrypto

/// SHA-256 against FIPS 180-2's test vectors: API keys are stored as these digests and every delivery's
/// stable apns-id is derived from one, so a change of implementation must not change a single output.
/// (Since round 23 both forms run OpenSSL's low-level SHA256_Init/Update/Final on a stack context, or
/// EVP_Digest where OpenSSL was built without deprecated functions.)
@Suite struct DigestTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func knownDigests(input: String, digest: String) {
        #expect(Self.hex(Digest.sha256(Array(input.utf8))) == digest)
    }

    @Test func intoCallerMemoryWithoutTouchingWhatFollows() {
        var out = [UInt8](repeating: 0xee, count: 40)
        Array("abc".utf8).withUnsafeBytes { input in
            out.withUnsafeMutableBytes { Digest.sha256(input, into: $0) }
        }
        #expect(Self.hex(Array(out[..<32])) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(out[32...].allSatisfy { $0 == 0xee })
    }

    @Test func aMillionBytesFromASlice() {
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_010)
        #expect(Self.hex(Digest.sha256(bytes[5..<1_000_005])) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
