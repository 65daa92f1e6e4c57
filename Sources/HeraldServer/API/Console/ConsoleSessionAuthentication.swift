import Foundation
import HeraldHTTP
import HeraldStore

/// The console's session cookie as a way of calling Herald's own `/v1` routes, beside bearer keys. A cookie
/// alone authenticates nothing: the request must also carry the session's CSRF token in `X-Herald-CSRF`,
/// which a page of another origin can neither read nor send. An admin session acts on one app when the
/// request names it in `X-Herald-App` (as the admin key could through that app's master key).
struct ConsoleSessionAuthentication: CallerAuthentication {
    let sessions: ConsoleSessions

    func presents(_ headers: HTTPHeaders) -> Bool {
        headers["authorization"] == nil && ConsoleSessions.sessionID(headers) != nil
    }

    func authenticate(_ request: HTTPRequest, now: Date) async throws -> Principal {
        let session = try await sessions.resume(request.headers, now: now)
        try sessions.requireCSRFToken(request.headers, of: session)
        guard let appID = request.headers[ConsoleSessions.appHeader], session.principal.role == .admin else { return session.principal }
        guard try await sessions.store.app(id: appID) != nil else {
            throw APIError(status: 404, code: "app_not_found", message: "No app \(appID); X-Herald-App must name an existing app.", field: "app")
        }
        return Principal(keyID: session.principal.keyID, role: .master(appID: appID))
    }
}
