import Foundation
import Testing
import HeraldCrypto

/// DER `SEQUENCE { INTEGER r, INTEGER s }` from raw `r||s`, written here independently of the library.
private func derSignature(fromRaw raw: [UInt8]) -> [UInt8] {
    func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }
    let body = integer(raw[0..<32]) + integer(raw[32..<64])
    return [0x30, UInt8(body.count)] + body
}

@Suite struct JWTTests {
    @Test func providerTokenVerifiesIndependentlyWithOpenSSL() async throws {
        let directory = try TemporaryDirectory()
        let keyPath = try directory.write("AuthKey_ABC123DEFG.p8", try await opensslP8())
        let key = try PrivateKey(pemFile: keyPath)
        let token = try JWT.apnsProviderToken(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", issuedAt: 1_780_000_000, using: key)

        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3)
        #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"))
        // Decode with Foundation, not with the library.
        func foundationDecode(_ part: String) throws -> [String: Any] {
            var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            let data = try #require(Data(base64Encoded: base64))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        let header = try foundationDecode(parts[0])
        let claims = try foundationDecode(parts[1])
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "ABC123DEFG")
        #expect(header["typ"] as? String == "JWT")
        #expect(claims["iss"] as? String == "DEF123GHIJ")
        #expect((claims["iat"] as? NSNumber)?.int64Value == 1_780_000_000)

        var signatureBase64 = parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while signatureBase64.count % 4 != 0 { signatureBase64 += "=" }
        let raw = [UInt8](try #require(Data(base64Encoded: signatureBase64)))
        #expect(raw.count == 64)
        try directory.write("input", parts[0] + "." + parts[1])
        try directory.write("signature.der", derSignature(fromRaw: raw))
        try await opensslOK(["pkey", "-in", keyPath, "-pubout", "-out", "public.pem"], in: directory)
        let verified = try await openssl(["dgst", "-sha256", "-verify", "public.pem", "-signature", "signature.der", "input"], in: directory)
        #expect(verified.status == 0, "\(verified.error)")
    }

    @Test func parsedTokenExposesFieldsAndVerifiesWithSeparatelyLoadedKey() async throws {
        let key = try PrivateKey.generateP256()
        let publicKey = try PublicKey(pem: key.publicKey.pem)
        let token = try JWT.sign(header: .init(kid: "KEY1234567", typ: nil, extra: ["x5t": .string("thumb")]),
                                 claims: .init(iss: "TEAM123456", iat: 1_700_000_000,
                                               extra: ["aud": .array([.string("a"), .string("b")]), "admin": .bool(true),
                                                       "nested": .object(["n": .number(1.5), "z": .null]),
                                                       "text": .string("quote \" backslash \\ newline \n é 🚀")]),
                                 using: key)
        let jwt = try JWT(parsing: token)
        #expect(jwt.header.alg == "ES256")
        #expect(jwt.header.kid == "KEY1234567")
        #expect(jwt.header.typ == nil)
        #expect(jwt.header.extra == ["x5t": .string("thumb")])
        #expect(jwt.claims.iss == "TEAM123456")
        #expect(jwt.claims.iat == 1_700_000_000)
        #expect(jwt.claims.extra["aud"] == .array([.string("a"), .string("b")]))
        #expect(jwt.claims.extra["admin"] == .bool(true))
        #expect(jwt.claims.extra["nested"] == .object(["n": .number(1.5), "z": .null]))
        #expect(jwt.claims.extra["text"] == .string("quote \" backslash \\ newline \n é 🚀"))
        #expect(jwt.signature.count == 64)
        try jwt.verify(using: publicKey)
        #expect(throws: JWTError.badSignature) { try jwt.verify(using: try PrivateKey.generateP256().publicKey) }
    }

    /// The seeds' PHP scripts built tokens with `base64_encode` (standard alphabet, padded) and signed with
    /// `openssl_sign` (DER). Apple accepted them; so must the simulator.
    @Test func phpStyleTokenWithPaddedBase64AndDERSignatureVerifies() async throws {
        let directory = try TemporaryDirectory()
        let keyPath = try directory.write("key.p8", try await opensslP8())
        // Chosen so that the standard alphabet and padding both show up.
        let header = Data(#"{"alg":"ES256","kid":"A1B2C3D4E5"}"#.utf8).base64EncodedString()
        let claims = Data(#"{"iss":"T1T2T3T4T5","iat":1780000000,"note":"??>>"}"#.utf8).base64EncodedString()
        #expect(header.hasSuffix("=") || claims.hasSuffix("="))
        #expect(claims.contains("/") || claims.contains("+"))
        let input = header + "." + claims
        try directory.write("input", input)
        let der = try await opensslOK(["dgst", "-sha256", "-sign", keyPath, "input"], in: directory).output
        let token = input + "." + Data(der).base64EncodedString()

        let jwt = try JWT(parsing: token)
        #expect(jwt.header.kid == "A1B2C3D4E5")
        #expect(jwt.claims.iss == "T1T2T3T4T5")
        #expect(jwt.claims.iat == 1_780_000_000)
        #expect(jwt.claims.issuedAt == Date(timeIntervalSince1970: 1_780_000_000))
        #expect(jwt.claims.extra["note"] == .string("??>>"))
        let publicKey = try PublicKey(pem: try await opensslOK(["pkey", "-in", keyPath, "-pubout"]).text)
        try jwt.verify(using: publicKey)
    }

    @Test func tamperedTokensFail() async throws {
        let key = try PrivateKey.generateP256()
        let token = try JWT.apnsProviderToken(keyID: "KID", teamID: "TEAM", issuedAt: 100, using: key)
        let parts = token.split(separator: ".").map(String.init)
        let forgedClaims = Base64URL.encode(Array(#"{"iss":"EVIL","iat":100}"#.utf8))
        #expect(throws: JWTError.badSignature) {
            try JWT(parsing: parts[0] + "." + forgedClaims + "." + parts[2]).verify(using: key.publicKey)
        }
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[0] ^= 0x80
        #expect(throws: JWTError.badSignature) {
            try JWT(parsing: parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)).verify(using: key.publicKey)
        }
    }

    @Test func otherAlgorithmsAndUnusableKeysAreRefused() async throws {
        let key = try PrivateKey.generateP256()
        let hs256 = Base64URL.encode(Array(#"{"alg":"HS256","kid":"K"}"#.utf8)) + "."
            + Base64URL.encode(Array(#"{"iss":"T","iat":1}"#.utf8)) + "." + Base64URL.encode([UInt8](repeating: 7, count: 32))
        #expect(throws: JWTError.unsupportedAlgorithm("HS256")) { try JWT(parsing: hs256).verify(using: key.publicKey) }
        #expect(throws: JWTError.unsupportedAlgorithm("none")) {
            try JWT.sign(header: .init(alg: "none", kid: "K"), claims: .init(iss: "T", iat: 1), using: key)
        }
        let rsa = try PrivateKey.generateRSA(bits: 1024)
        #expect(throws: JWTError.unusableKey("RSA 1024-bit")) {
            try JWT.apnsProviderToken(keyID: "K", teamID: "T", issuedAt: 1, using: rsa)
        }
        let token = try JWT.apnsProviderToken(keyID: "K", teamID: "T", issuedAt: 1, using: key)
        #expect(throws: JWTError.unusableKey("RSA 1024-bit")) { try JWT(parsing: token).verify(using: rsa.publicKey) }
    }

    @Test(arguments: [
        "", "abc", "a.b", "a.b.c.d", "!!!.e30.AAAA",
        Base64URL.encode(Array("[1]".utf8)) + ".e30.AAAA",           // header not an object
        "e30.e30.AAAA",                                                // header without alg
        Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8)) + ".e30.",   // no signature
        Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8)) + "." + Base64URL.encode(Array(#"{"iat":"soon"}"#.utf8)) + ".AAAA",
        Base64URL.encode(Array(#"{"alg":"ES256","alg":"none"}"#.utf8)) + ".e30.AAAA", // duplicate member
        Base64URL.encode(Array(#"{"alg":"ES256"} x"#.utf8)) + ".e30.AAAA",           // trailing garbage
    ])
    func malformedTokensAreRejected(token: String) {
        #expect {
            try JWT(parsing: token)
        } throws: { error in
            guard case .malformed = error as? JWTError else { return false }
            return true
        }
    }

    @Test func surroundingWhitespaceIsIgnored() async throws {
        let key = try PrivateKey.generateP256()
        let token = try JWT.apnsProviderToken(keyID: "K", teamID: "T", issuedAt: 1, using: key)
        try JWT(parsing: "  " + token + "\r\n").verify(using: key.publicKey)
    }
}
