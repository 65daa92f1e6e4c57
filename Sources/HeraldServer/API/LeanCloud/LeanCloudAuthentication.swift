import Foundation
import HeraldCrypto
import HeraldHTTP

/// LeanCloud's credentials: `X-LC-Id: <App ID>` with `X-LC-Key: <App Key>` or `X-LC-Key: <Master Key>,master`,
/// or `X-LC-Sign: md5(timestamp + key),timestamp[,master]` (what the iOS SDKs and the Python SDK send). The App
/// Key has a Herald client key's powers, the Master Key a master key's. The keys come from the app's LeanCloud
/// identity (`PUT /v1/apps/{appId}/leancloud`). A Herald key sent as `X-LC-Key` still works, so backends that
/// already moved keep working.
struct LeanCloudAuthentication: CallerAuthentication {
    let identities: CompatIdentitiesService
    let keys: KeyAuthenticator
    /// How far a signature's timestamp may be from the server's clock, either way. LeanCloud refuses stale
    /// signatures; a captured `X-LC-Sign` header is worth nothing after this long.
    static let maxSignatureAge: TimeInterval = 15 * 60

    func presents(_ headers: HTTPHeaders) -> Bool {
        headers["authorization"] == nil && (headers["x-lc-sign"] != nil || headers["x-lc-key"] != nil)
    }

    func authenticate(_ request: HTTPRequest, now: Date) async throws -> Principal {
        let headers = request.headers
        if let id = headers["x-lc-id"], id.utf8.count <= 128,
           let identity = try await identities.resolve(provider: "leancloud", publicID: id) {
            let presented = try Self.presentedKey(headers, now: now)
            let secret = presented.master ? identity.secrets["masterKey"] : identity.secrets["appKey"]
            if let secret, presented.matches(secret) {
                let role: Principal.Role = presented.master ? .master(appID: identity.appID) : .client(appID: identity.appID)
                return Principal(keyID: "leancloud:\(identity.appID):\(presented.master ? "master" : "app")", role: role)
            }
            guard headers["x-lc-sign"] == nil else { throw LeanCloudError.unauthorized }
        }
        // Not a LeanCloud key of a known App ID: a Herald key sent LeanCloud's way, or nothing.
        guard let key = headers["x-lc-key"]?.split(separator: ",").first else { throw LeanCloudError.unauthorized }
        do {
            return try await keys.authenticate("Bearer " + key.trimmingSpaces)
        } catch let error as APIError where error.status == 401 {
            throw LeanCloudError.unauthorized
        }
    }

    /// What the request proves: a key in clear or a signature over a timestamp.
    struct PresentedKey {
        var master: Bool
        var check: @Sendable (String) -> Bool

        func matches(_ secret: String) -> Bool { check(secret) }
    }

    static func presentedKey(_ headers: HTTPHeaders, now: Date) throws -> PresentedKey {
        if let sign = headers["x-lc-sign"] {
            let parts = sign.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
            guard (2...3).contains(parts.count), parts.count == 2 || parts[2] == "master",
                  parts[0].utf8.count == 32, let ms = Int64(parts[1]), parts[1].utf8.count <= 16 else {
                throw APIError(status: 401, code: "unauthorized", message: "X-LC-Sign must be md5(timestamp+key),timestamp or md5(timestamp+masterKey),timestamp,master (timestamp in Unix milliseconds).")
            }
            let signedAt = Date(timeIntervalSince1970: Double(ms) / 1000)
            guard abs(signedAt.timeIntervalSince(now)) <= maxSignatureAge else {
                throw APIError(status: 401, code: "unauthorized", message: "X-LC-Sign's timestamp is more than \(Int(maxSignatureAge / 60)) minutes from the server's time; sign each request with the current time (check the device's or server's clock).")
            }
            let digest = Array(parts[0].utf8), timestamp = parts[1]
            return PresentedKey(master: parts.count == 3) { secret in
                constantTimeEquals(Array(hex(Digest.md5(Array((timestamp + secret).utf8))).utf8), digest)
            }
        }
        guard let value = headers["x-lc-key"] else { throw LeanCloudError.unauthorized }
        let parts = value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        guard (1...2).contains(parts.count), parts.count == 1 || parts[1] == "master" else { throw LeanCloudError.unauthorized }
        let key = Array(parts[0].utf8)
        return PresentedKey(master: parts.count == 2) { constantTimeEquals(Array($0.utf8), key) }
    }

    /// Lower-case hex, as LeanCloud compares it (an upper-case digest fails there too).
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
