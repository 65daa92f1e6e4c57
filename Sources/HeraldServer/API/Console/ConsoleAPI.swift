import Foundation
import HeraldHTTP

/// Signing in and out of the web console (`ConsoleSessions`) and serving its files (`ConsoleAssets`). The
/// rest of what the console does goes through the same `/v1` routes as every other client, authenticated
/// by the session (`ConsoleSessionAuthentication`).
struct ConsoleAPI {
    let sessions: ConsoleSessions

    var routes: [Route] {
        [
            Route("GET", "/console", .open, "The web console (docs/console.md).", handler: page),
            Route("GET", "/console/{file}", .open, "The web console's scripts, styles and images.", handler: asset),
            Route("POST", "/v1/console/session", .open, "Sign in to the console with an admin or master key: {\"key\"}; sets the session cookie.", handler: signIn),
            Route("GET", "/v1/console/session", .open, "The console session of the cookie: role, app, CSRF token, expiry.", handler: current),
            Route("DELETE", "/v1/console/session", .open, "Sign out: the session stops working everywhere.", handler: signOut),
        ]
    }

    func page(_ ctx: RequestContext) async throws -> HTTPResponse {
        try ConsoleAssets.response(for: "index.html", request: ctx.request)
    }

    func asset(_ ctx: RequestContext) async throws -> HTTPResponse {
        try ConsoleAssets.response(for: ctx.parameter("file"), request: ctx.request)
    }

    func signIn(_ ctx: RequestContext) async throws -> HTTPResponse {
        try Self.requireOwnScript(ctx.request.headers)
        let body = BodyReader(try ctx.jsonObject())
        try body.rejectUnknown(["key"])
        let key = try body.requiredString("key", maxLength: 200)
        let opened: ConsoleSessions.Opened
        do { opened = try await sessions.open(key: key, now: ctx.now) } catch let error as APIError where error.status == 401 {
            throw APIError(status: 401, code: "unauthorized", message: "This key is unknown or revoked; paste the admin key or an app's master key.", field: "key")
        }
        var headers = HTTPHeaders()
        headers.set("set-cookie", ConsoleSessions.cookie(opened.id, secure: Self.overTLS(ctx.request.headers)))
        headers.set("cache-control", "no-store")
        return .json(201, Self.json(opened), headers: headers)
    }

    func current(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, Self.json(try await sessions.resume(ctx.request.headers, now: ctx.now)), headers: ["cache-control": "no-store"])
    }

    func signOut(_ ctx: RequestContext) async throws -> HTTPResponse {
        let session = try await sessions.resume(ctx.request.headers, now: ctx.now)
        try sessions.requireCSRFToken(ctx.request.headers, of: session)
        try await sessions.close(ctx.request.headers)
        var headers = HTTPHeaders()
        headers.set("set-cookie", ConsoleSessions.cookie(nil, secure: Self.overTLS(ctx.request.headers)))
        return HTTPResponse(status: 204, headers: headers)
    }

    /// Signing in needs the custom header too: another site's form cannot send one, so it cannot sign a
    /// visitor in to the attacker's session (login CSRF).
    static func requireOwnScript(_ headers: HTTPHeaders) throws {
        guard headers[ConsoleSessions.csrfHeader] != nil else {
            throw APIError(status: 403, code: "csrf_token_missing", message: "Sign in from the console page: the request must carry an X-Herald-CSRF header.")
        }
    }

    static func overTLS(_ headers: HTTPHeaders) -> Bool { headers["x-forwarded-proto"]?.lowercased() == "https" }

    static func json(_ s: ConsoleSessions.Opened) -> JSON {
        let role: String = switch s.principal.role { case .admin: "admin"; case .master: "master"; case .client: "client" }
        return ["role": .string(role), "appId": .optional(s.principal.appID), "csrfToken": .string(s.csrfToken),
                "expiresAt": ISO8601.json(s.expiresAt), "idleLimitSeconds": .int(Int(ConsoleSessions.idleLimit)),
                "absoluteLimitSeconds": .int(Int(ConsoleSessions.absoluteLimit))]
    }
}
