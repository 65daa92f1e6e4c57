import Foundation

/// A credential upload, validated: `.p8` token key `{type:"token", keyId, teamId, key}` or certificate
/// `{type:"certificate", p12 (base64), passphrase}` / `{type:"certificate", certificate, privateKey, passphrase}`.
/// The material is sealed as JSON; only metadata (type, keyId, teamId, topic) is ever returned.
struct CredentialInput: Sendable {
    var kind: String
    var keyID: String?
    var teamID: String?
    var topic: String?
    var material: JSON

    static func parse(_ body: BodyReader) throws -> CredentialInput {
        let type = try body.requiredString("type", maxLength: 16)
        let topic = try body.string("topic", maxLength: 255)
        switch type {
        case "token":
            try body.rejectUnknown(["type", "keyId", "teamId", "key", "topic"])
            return try token(keyID: try body.requiredString("keyId", maxLength: 10), teamID: try body.requiredString("teamId", maxLength: 10),
                             key: try body.requiredString("key", maxLength: 8192), topic: topic)
        case "certificate":
            try body.rejectUnknown(["type", "p12", "certificate", "privateKey", "passphrase", "topic"])
            let passphrase = try body.string("passphrase", maxLength: 1024, allowEmpty: true)
            if let p12 = try body.string("p12", maxLength: 65_536) {
                guard let data = Data(base64Encoded: p12, options: .ignoreUnknownCharacters), !data.isEmpty else {
                    throw ServiceError.invalid("p12", "p12 must be the .p12 file encoded as base64.")
                }
                return CredentialInput(kind: "certificate", keyID: nil, teamID: nil, topic: topic,
                                       material: ["type": "p12", "p12": .string(data.base64EncodedString()), "passphrase": .optional(passphrase)])
            }
            let certificate = try body.requiredString("certificate", maxLength: 65_536)
            let privateKey = try body.requiredString("privateKey", maxLength: 65_536)
            guard certificate.contains("-----BEGIN CERTIFICATE-----") else {
                throw ServiceError.invalid("certificate", "certificate must be PEM text starting with -----BEGIN CERTIFICATE----- (or send p12 instead).")
            }
            guard privateKey.contains("PRIVATE KEY-----") else {
                throw ServiceError.invalid("privateKey", "privateKey must be PEM text of the certificate's private key.")
            }
            return CredentialInput(kind: "certificate", keyID: nil, teamID: nil, topic: topic,
                                   material: ["type": "pem", "certificate": .string(certificate), "privateKey": .string(privateKey), "passphrase": .optional(passphrase)])
        default:
            throw ServiceError.invalid("type", "type must be \"token\" (a .p8 key) or \"certificate\".")
        }
    }

    /// A `.p8` token key: its key id, the team id and the PEM text.
    static func token(keyID: String, teamID: String, key: String, topic: String? = nil) throws -> CredentialInput {
        try tenCharacterID(keyID, "keyId")
        try tenCharacterID(teamID, "teamId")
        guard key.contains("-----BEGIN PRIVATE KEY-----"), key.contains("-----END PRIVATE KEY-----") else {
            throw ServiceError.invalid("key", "key must be the PEM text of the .p8 file, starting with -----BEGIN PRIVATE KEY-----.")
        }
        return CredentialInput(kind: "token", keyID: keyID, teamID: teamID, topic: topic,
                               material: ["type": "token", "keyId": .string(keyID), "teamId": .string(teamID), "key": .string(key)])
    }

    private static func tenCharacterID(_ value: String, _ key: String) throws {
        guard value.count == 10, value.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5a) }) else {
            throw ServiceError.invalid(key, "\(key) must be the 10-character identifier from the Apple developer account (A-Z, 0-9).")
        }
    }

    /// Turns stored material back into what the transport needs.
    static func credential(from material: JSON) -> AppCredential? {
        switch material["type"]?.stringValue {
        case "token":
            guard let k = material["keyId"]?.stringValue, let t = material["teamId"]?.stringValue, let pem = material["key"]?.stringValue else { return nil }
            return .token(keyID: k, teamID: t, privateKeyPEM: pem)
        case "p12":
            guard let b = material["p12"]?.stringValue, let data = Data(base64Encoded: b) else { return nil }
            return .pkcs12(data: Array(data), passphrase: material["passphrase"]?.stringValue)
        case "pem":
            guard let c = material["certificate"]?.stringValue, let k = material["privateKey"]?.stringValue else { return nil }
            return .pem(certificate: c, privateKey: k, passphrase: material["passphrase"]?.stringValue)
        default: return nil
        }
    }
}
