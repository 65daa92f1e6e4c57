import Foundation
import HeraldStore

/// Issues and checks API keys. Secrets are random, shown once, and stored only as SHA-256 hashes; a
/// lookup hashes the presented key, finds the row by hash and compares the hashes in constant time.
/// A key that passed is reused for `KeyVerdictCache.window` seconds without a store read; rotations and
/// app deletions go through `forgetVerdicts()`, so on this node a revoked key stops at once.
struct KeyAuthenticator: Sendable {
    let store: any HeraldStorage
    let crypto: any ServerCrypto
    let clock: any HeraldClock
    let verdicts = KeyVerdictCache()

    /// A new key: the secret to hand out once, and the record to store.
    func issue(scope: KeyScope, appID: String?, now: Date) -> (secret: String, record: APIKeyRecord) {
        let prefix: String = switch scope {
        case .admin: "hk_admin_"
        case .master: "hk_master_"
        case .client: "hk_client_"
        }
        let secret = prefix + Self.base62(crypto.randomBytes(32))
        let record = APIKeyRecord(id: "key_" + Self.base62(crypto.randomBytes(9)), appID: appID, scope: scope,
                                  hash: crypto.sha256(Array(secret.utf8)), hint: String(secret.prefix(prefix.count + 6)),
                                  createdAt: now)
        return (secret, record)
    }

    /// Registers a key chosen by the operator (e.g. `admin.key` from configuration) if it is not stored yet.
    func adopt(secret: String, scope: KeyScope, now: Date) async throws {
        let hash = crypto.sha256(Array(secret.utf8))
        if try await store.key(hash: hash) != nil { return }
        let id = "key_" + Self.base62(crypto.randomBytes(9))
        try await store.insertKey(APIKeyRecord(id: id, appID: nil, scope: scope, hash: hash, hint: "admin.key (configured)", createdAt: now))
    }

    func authenticate(_ header: String?) async throws -> Principal {
        guard let header, let secret = Self.bearerSecret(header), !secret.isEmpty, secret.count <= 200 else { throw APIError.unauthorized }
        return try await authenticate(hash: crypto.sha256(secret))
    }

    /// The caller whose key hashes to `hash` (a console session keeps the hash, never the key).
    func authenticate(hash: [UInt8]) async throws -> Principal {
        let now = clock.now()
        if let known = verdicts.principal(hash: hash, now: now) { return known }
        let generation = verdicts.generation
        guard let record = try await store.key(hash: hash), constantTimeEquals(record.hash, hash), record.revokedAt == nil else {
            throw APIError.unauthorized
        }
        let principal = switch record.scope {
        case .admin: Principal(keyID: record.id, role: .admin)
        case .master: Principal(keyID: record.id, role: .master(appID: record.appID ?? ""))
        case .client: Principal(keyID: record.id, role: .client(appID: record.appID ?? ""))
        }
        verdicts.remember(hash: hash, principal, checkedAt: now, generation: generation)
        return principal
    }

    /// After keys were revoked or deleted on this node: every key is read from the store again.
    func forgetVerdicts() { verdicts.forgetAll() }

    /// The key in `Bearer <key>` (the scheme in any case), without the spaces and tabs around it; nil for
    /// another scheme. Other Unicode white space around the key is trimmed too, as it always was.
    static func bearerSecret(_ header: String) -> [UInt8]? {
        let bytes = Array(header.utf8)
        let scheme = "bearer ".utf8
        guard bytes.count > scheme.count, zip(bytes, scheme).allSatisfy({ (0x41...0x5A).contains($0) ? $0 | 0x20 == $1 : $0 == $1 }) else { return nil }
        var key = bytes[scheme.count...]
        guard key.allSatisfy({ $0 < 0x80 }) else {
            return Array(String(decoding: key, as: UTF8.self).trimmingCharacters(in: .whitespaces).utf8)
        }
        while let first = key.first, first == 0x20 || first == 0x09 { key.removeFirst() }
        while let last = key.last, last == 0x20 || last == 0x09 { key.removeLast() }
        return Array(key)
    }

    static func base62(_ bytes: [UInt8]) -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        // Big-number base conversion: every output character is unbiased.
        var digits = bytes
        var out: [Character] = []
        while digits.contains(where: { $0 != 0 }) {
            var remainder = 0
            var next: [UInt8] = []
            for d in digits {
                let acc = remainder * 256 + Int(d)
                let q = acc / 62
                remainder = acc % 62
                if !next.isEmpty || q != 0 { next.append(UInt8(q)) }
            }
            out.append(alphabet[remainder])
            digits = next
        }
        return String(out.reversed())
    }
}
