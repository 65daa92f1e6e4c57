import Foundation
import HeraldHTTP

/// JPush's credentials: HTTP Basic `appKey:masterSecret`, the pair an app stored with
/// `PUT /v1/apps/{appId}/jpush`; or Basic `<Herald app id>:<Herald master key>`, so a team can point an
/// unchanged JPush SDK at Herald before (or without) storing its JPush keys. Either way the caller is
/// the app's master.
struct JPushAuthentication: CallerAuthentication {
    let identities: CompatIdentitiesService
    let authenticator: KeyAuthenticator

    func presents(_ headers: HTTPHeaders) -> Bool {
        headers["authorization"].map { $0.count > 6 && $0.prefix(6).lowercased() == "basic " } ?? false
    }

    func authenticate(_ request: HTTPRequest, now: Date) async throws -> Principal {
        guard let (user, password) = Self.basicCredentials(request.headers["authorization"]) else { throw APIError.unauthorized }
        if let identity = try await identities.resolve(provider: JPushKeysAPI.provider, publicID: user) {
            guard let secret = identity.secrets["masterSecret"], constantTimeEquals(Array(secret.utf8), Array(password.utf8)) else {
                throw APIError.unauthorized
            }
            return Principal(keyID: "jpush:\(user)", role: .master(appID: identity.appID))
        }
        // Not a JPush App Key: a Herald app id with that app's master key.
        let principal = try await authenticator.authenticate("Bearer " + password)
        guard principal.role == .master(appID: user) else { throw APIError.unauthorized }
        return principal
    }

    /// `Basic base64(user:password)`; nil when malformed. The password may contain colons, the user may not.
    static func basicCredentials(_ header: String?) -> (String, String)? {
        guard let header, header.count > 6, header.count <= 1024, header.prefix(6).lowercased() == "basic ",
              let data = Data(base64Encoded: header.dropFirst(6).trimmingSpaces),
              let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return nil }
        let user = String(text[..<colon]), password = String(text[text.index(after: colon)...])
        guard !user.isEmpty, !password.isEmpty else { return nil }
        return (user, password)
    }
}
