import Foundation

/// An ES256 JSON Web Token (JWS compact form), as APNs provider tokens are.
///
/// Builds `base64url(header).base64url(claims).base64url(r||s)`; parses leniently: standard base64 with
/// padding is accepted as well as base64url (PHP's `base64_encode` output worked against Apple), and the
/// signature may be raw `r||s` or DER.
///
/// Sendable: an immutable value.
public struct JWT: Sendable, Equatable {
    /// The JOSE header.
    public struct Header: Sendable, Equatable {
        /// `alg`: the signature algorithm; only ES256 is signed or verified.
        public var alg: String
        /// `kid`: the key ID (APNs: the 10-character ID of the .p8 key).
        public var kid: String?
        /// `typ`: optional; pushy and APNSwift send "JWT", Apple does not need it.
        public var typ: String?
        /// Any other header fields.
        public var extra: [String: JWT.Value]

        public init(alg: String = "ES256", kid: String?, typ: String? = "JWT", extra: [String: JWT.Value] = [:]) {
            self.alg = alg
            self.kid = kid
            self.typ = typ
            self.extra = extra
        }
    }

    /// The claims set.
    public struct Claims: Sendable, Equatable {
        /// `iss`: the issuer (APNs: the 10-character team ID).
        public var iss: String?
        /// `iat`: issued-at, UNIX seconds (parsed from a JSON number or a string of decimal digits).
        public var iat: Int64?
        /// Any other claims.
        public var extra: [String: JWT.Value]

        public init(iss: String?, iat: Int64?, extra: [String: JWT.Value] = [:]) {
            self.iss = iss
            self.iat = iat
            self.extra = extra
        }

        /// `iat` as a date, for comparing with an injected clock.
        public var issuedAt: Date? { iat.map { Date(timeIntervalSince1970: TimeInterval($0)) } }
    }

    public let header: Header
    public let claims: Claims
    /// The signature bytes as sent (raw `r||s` or DER).
    public let signature: [UInt8]
    /// `header.claims` exactly as in the token: the bytes the signature covers.
    public let signingInput: [UInt8]

    // MARK: Building

    /// Signs `claims` under `header` with ES256 and returns the compact token.
    /// Header fields are written in the order alg, kid, typ, then `extra` sorted; claims iss, iat, then sorted.
    /// - Throws: `JWTError.unsupportedAlgorithm` if `header.alg` is not ES256, `.unusableKey` if `key` is
    ///   not P-256.
    public static func sign(header: Header, claims: Claims, using key: PrivateKey) throws(JWTError) -> String {
        guard header.alg == "ES256" else { throw .unsupportedAlgorithm(header.alg) }
        let signingInput = Base64URL.encode(encode(header)) + "." + Base64URL.encode(encode(claims))
        let signature: [UInt8]
        do {
            signature = try key.signES256(Array(signingInput.utf8))
        } catch {
            throw .unusableKey(key.algorithm.description)
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// An APNs provider token: `{"alg":"ES256","kid":keyID,"typ":"JWT"}.{"iss":teamID,"iat":issuedAt}`.
    public static func apnsProviderToken(keyID: String, teamID: String, issuedAt: Int64, using key: PrivateKey) throws(JWTError) -> String {
        try sign(header: Header(kid: keyID), claims: Claims(iss: teamID, iat: issuedAt), using: key)
    }

    private static func encode(_ header: Header) -> [UInt8] {
        var members: [(key: String, value: JWT.Value)] = [("alg", .string(header.alg))]
        if let kid = header.kid { members.append(("kid", .string(kid))) }
        if let typ = header.typ { members.append(("typ", .string(typ))) }
        members += header.extra.filter { !["alg", "kid", "typ"].contains($0.key) }.sorted { $0.key < $1.key }
        return JWT.Value.encodeObject(members)
    }

    private static func encode(_ claims: Claims) -> [UInt8] {
        var members: [(key: String, value: JWT.Value)] = []
        if let iss = claims.iss { members.append(("iss", .string(iss))) }
        if let iat = claims.iat { members.append(("iat", .integer(iat))) }
        members += claims.extra.filter { !["iss", "iat"].contains($0.key) }.sorted { $0.key < $1.key }
        return JWT.Value.encodeObject(members)
    }

    // MARK: Parsing and verifying

    /// Parses a compact token (surrounding whitespace ignored). Does not verify it.
    /// - Throws: `JWTError.malformed`.
    public init<S: StringProtocol>(parsing token: S) throws(JWTError) {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        var text = Array(token.utf8)
        while let last = text.last, isSpace(last) { text.removeLast() }
        let parts = text.drop(while: isSpace).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("expected 3 dot-separated parts, found \(parts.count)") }
        guard let headerBytes = Base64URL.decode(String(decoding: parts[0], as: UTF8.self)),
              case .object(let headerFields)? = Value(parsing: headerBytes) else {
            throw .malformed("the header is not a base64 JSON object")
        }
        guard let claimBytes = Base64URL.decode(String(decoding: parts[1], as: UTF8.self)),
              case .object(let claimFields)? = Value(parsing: claimBytes) else {
            throw .malformed("the claims are not a base64 JSON object")
        }
        guard !parts[2].isEmpty, let signature = Base64URL.decode(String(decoding: parts[2], as: UTF8.self)) else {
            throw .malformed(parts[2].isEmpty ? "the signature is missing" : "the signature is not base64")
        }
        guard let alg = headerFields["alg"]?.stringValue else { throw .malformed("the header has no \"alg\" string") }
        let kid = try JWT.optionalString(headerFields, "kid", in: "header")
        let typ = try JWT.optionalString(headerFields, "typ", in: "header")
        let iss = try JWT.optionalString(claimFields, "iss", in: "claims")
        var iat: Int64?
        if let value = claimFields["iat"] {
            guard let seconds = value.integerValue ?? JWT.decimalSeconds(value.stringValue) else {
                throw .malformed("\"iat\" is not a number of seconds")
            }
            iat = seconds
        }
        header = Header(alg: alg, kid: kid, typ: typ, extra: headerFields.filter { !["alg", "kid", "typ"].contains($0.key) })
        claims = Claims(iss: iss, iat: iat, extra: claimFields.filter { !["iss", "iat"].contains($0.key) })
        self.signature = signature
        signingInput = Array(parts[0]) + [UInt8(ascii: ".")] + Array(parts[1])
    }

    /// `iat` written as a string of decimal digits, as APNSwift sent it to APNs for years and kalyke-apns
    /// still does; APNs accepts it. Anything else in a string (signs, fractions, exponents, spaces) is not
    /// a number of seconds.
    private static func decimalSeconds(_ text: String?) -> Int64? {
        guard let text, !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }

    private static func optionalString(_ fields: [String: JWT.Value], _ name: String, in part: String) throws(JWTError) -> String? {
        guard let value = fields[name] else { return nil }
        guard let string = value.stringValue else { throw .malformed("\"\(name)\" in the \(part) is not a string") }
        return string
    }

    /// Checks that the token is ES256 and its signature (raw `r||s` or DER) verifies with `key`.
    /// Expiry is the caller's business (compare `claims.iat` with an injected clock).
    /// - Throws: `JWTError.unsupportedAlgorithm`, `.unusableKey`, `.badSignature`.
    public func verify(using key: PublicKey) throws(JWTError) {
        guard header.alg == "ES256" else { throw .unsupportedAlgorithm(header.alg) }
        guard key.algorithm.isP256 else { throw .unusableKey(key.algorithm.description) }
        guard key.verifyES256(signature: signature, message: signingInput) else { throw .badSignature }
    }
}
