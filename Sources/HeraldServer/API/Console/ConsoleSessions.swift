import Foundation
import HeraldHTTP
import HeraldStore

/// The web console's sessions. Signing in with an admin or master key opens one: the browser gets a random
/// 32-byte id in an HttpOnly, SameSite=Strict cookie; the store keeps only the id's SHA-256 and the key's
/// hash, so the key itself stays nowhere in the browser, and every node of a cluster finds the session.
/// A session ends when it is idle longer than `idleLimit`, older than `absoluteLimit`, signed out, or when
/// the key it was opened with is revoked (checked on every request).
struct ConsoleSessions: Sendable {
    static let cookieName = "herald_session"
    /// The header that must carry the session's CSRF token on every cookie-authenticated request.
    static let csrfHeader = "x-herald-csrf"
    /// With an admin session: the app a request acts on (admin keys may act on any app).
    static let appHeader = "x-herald-app"
    static let idleLimit: TimeInterval = 30 * 60
    static let absoluteLimit: TimeInterval = 12 * 3600
    /// `lastSeenAt` is written at most this often per session, not on every request.
    static let touchInterval: TimeInterval = 60

    let store: any HeraldStorage
    let crypto: any ServerCrypto
    let authenticator: KeyAuthenticator

    /// A signed-in session: who, and the token the console's script must echo in `X-Herald-CSRF`.
    struct Opened: Sendable {
        var id: String
        var principal: Principal
        var csrfToken: String
        var expiresAt: Date
    }

    /// Checks the key as any API request would and opens a session for an admin or master key.
    func open(key: String, now: Date) async throws -> Opened {
        let principal = try await authenticator.authenticate("Bearer " + key)
        if case .client = principal.role {
            throw APIError(status: 403, code: "forbidden", message: "Client keys cannot sign in to the console; use the admin key or an app's master key.", field: "key")
        }
        let id = KeyAuthenticator.base62(crypto.randomBytes(32))
        let record = ConsoleSessionRecord(idHash: crypto.sha256(Array(id.utf8)), keyHash: crypto.sha256(Array(key.utf8)), createdAt: now, lastSeenAt: now)
        try await store.insertConsoleSession(record, pruneBefore: now.addingTimeInterval(-Self.idleLimit))
        return Opened(id: id, principal: principal, csrfToken: csrfToken(id), expiresAt: expiry(record))
    }

    /// The session a request's cookie names, with its caller; throws 401 when there is none, it expired, or
    /// its key was revoked. Does not look at the CSRF header (`authenticate` does).
    func resume(_ headers: HTTPHeaders, now: Date) async throws -> Opened {
        guard let id = Self.sessionID(headers) else { throw Self.expired }
        let idHash = crypto.sha256(Array(id.utf8))
        guard let record = try await store.consoleSession(idHash: idHash), now < expiry(record) else { throw Self.expired }
        let principal: Principal
        do { principal = try await authenticator.authenticate(hash: record.keyHash) } catch let error as APIError where error.status == 401 {
            _ = try await store.deleteConsoleSession(idHash: idHash)
            throw APIError(status: 401, code: "session_expired", message: "The key this session was opened with was revoked; sign in with a current key.")
        }
        if now.timeIntervalSince(record.lastSeenAt) >= Self.touchInterval {
            try await store.touchConsoleSession(idHash: idHash, at: now)
        }
        var touched = record
        touched.lastSeenAt = now
        return Opened(id: id, principal: principal, csrfToken: csrfToken(id), expiresAt: expiry(touched))
    }

    /// Throws 403 unless the request carries the session's CSRF token (compared in constant time).
    func requireCSRFToken(_ headers: HTTPHeaders, of session: Opened) throws {
        guard let presented = headers[Self.csrfHeader], constantTimeEquals(Array(presented.utf8), Array(session.csrfToken.utf8)) else {
            throw APIError(status: 403, code: "csrf_token_missing",
                           message: "A console session must send its CSRF token in X-Herald-CSRF (GET /v1/console/session returns it).")
        }
    }

    /// Sign-out: the session stops working on every node at once.
    func close(_ headers: HTTPHeaders) async throws {
        guard let id = Self.sessionID(headers) else { return }
        _ = try await store.deleteConsoleSession(idHash: crypto.sha256(Array(id.utf8)))
    }

    /// Derived from the session id, so nothing more is stored; only a script of the console's own origin
    /// can read it (from the session route's JSON), and another site cannot set a custom header.
    func csrfToken(_ id: String) -> String {
        KeyAuthenticator.base62(crypto.sha256(Array("herald-console-csrf:\(id)".utf8)))
    }

    /// Idle or absolute, whichever comes first.
    func expiry(_ record: ConsoleSessionRecord) -> Date {
        min(record.lastSeenAt.addingTimeInterval(Self.idleLimit), record.createdAt.addingTimeInterval(Self.absoluteLimit))
    }

    static let expired = APIError(status: 401, code: "session_expired", message: "No console session, or it expired; sign in again.")

    static func sessionID(_ headers: HTTPHeaders) -> String? {
        for header in headers.values(for: "cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName {
                    let value = parts[1].trimmingCharacters(in: .whitespaces)
                    return value.isEmpty || value.utf8.count > 100 ? nil : value
                }
            }
        }
        return nil
    }

    /// `Set-Cookie` for a new session, or (nil) one that clears it. Secure when the request came over TLS
    /// through a proxy that says so (`X-Forwarded-Proto: https`); `herald serve` itself speaks plain HTTP.
    static func cookie(_ id: String?, secure: Bool) -> String {
        var parts = ["\(cookieName)=\(id ?? "")", "Path=/", "HttpOnly", "SameSite=Strict", "Max-Age=\(id == nil ? 0 : Int(absoluteLimit))"]
        if secure { parts.append("Secure") }
        return parts.joined(separator: "; ")
    }
}
