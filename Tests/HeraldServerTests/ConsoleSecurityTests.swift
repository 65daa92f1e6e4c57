import Foundation
import Testing
import HeraldHTTP
@testable import HeraldServer

/// The console's session rules, in-process on the real service: a cookie alone authenticates nothing, the
/// CSRF token must come with it, sessions expire (idle and absolute), die with their key and at sign-out,
/// and a master key's session sees its app only. Runs on both stores (sessions are shared by nodes).
@Suite struct ConsoleSecurityTests {
    struct Session { var cookie: String; var csrf: String }

    func signIn(_ t: TestService, key: String) async throws -> Session {
        let r = await t.call("POST", "/v1/console/session", json: ["key": .string(key)], headers: ["x-herald-csrf": "signin"])
        guard r.status == 201, let setCookie = r.headers["set-cookie"], let csrf = r.body["csrfToken"]?.stringValue else {
            throw TestFailure("sign-in: \(r.status) \(r.text)")
        }
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/"))
        #expect(!setCookie.contains(key) && !r.text.contains(key), "the key never goes back to the browser")
        return Session(cookie: String(setCookie.split(separator: ";")[0]), csrf: csrf)
    }

    func headers(_ s: Session, csrf: String? = nil, app: String? = nil) -> HTTPHeaders {
        var h: HTTPHeaders = ["cookie": "theme=dark; \(s.cookie)"]
        h.set("x-herald-csrf", csrf ?? s.csrf)
        if let app { h.set("x-herald-app", app) }
        return h
    }

    @Test(arguments: ServerStore.available) func cookieNeedsTheCSRFTokenAndSignOutEndsTheSession(_ store: ServerStore) async throws {
        let t = try await TestService(store: store)
        let app = try await t.createApp()
        let s = try await signIn(t, key: testAdminKey)

        #expect(await t.call("GET", "/v1/apps", headers: headers(s)).status == 200)
        // The cookie without the header (what a cross-site form or image would send) is refused...
        let bare = await t.call("GET", "/v1/apps", headers: ["cookie": s.cookie])
        #expect(bare.status == 403 && bare.errorCode == "csrf_token_missing")
        // ...and so is a wrong token.
        #expect(await t.call("GET", "/v1/apps", headers: headers(s, csrf: "guess")).status == 403)
        // Signing in needs the header too (login CSRF).
        #expect(await t.call("POST", "/v1/console/session", json: ["key": .string(testAdminKey)]).status == 403)

        // An admin session acts on one app by naming it; a master-key route without it is refused.
        #expect(await t.call("GET", "/v1/pushes", headers: headers(s, app: app.id)).status == 200)
        #expect(await t.call("GET", "/v1/pushes", headers: headers(s)).status == 403)
        #expect(await t.call("GET", "/v1/pushes", headers: headers(s, app: "app_missing")).status == 404)

        // Sign-out without the token does nothing; with it, the session is gone for every later request.
        #expect(await t.call("DELETE", "/v1/console/session", headers: ["cookie": s.cookie]).status == 403)
        let out = await t.call("DELETE", "/v1/console/session", headers: headers(s))
        #expect(out.status == 204 && out.headers["set-cookie"]?.contains("Max-Age=0") == true)
        let after = await t.call("GET", "/v1/apps", headers: headers(s))
        #expect(after.status == 401 && after.errorCode == "session_expired")
        #expect(await t.call("GET", "/v1/console/session", headers: headers(s)).status == 401)
    }

    @Test func wrongKeysAndClientKeysCannotSignIn() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        let wrong = await t.call("POST", "/v1/console/session", json: ["key": "hk_admin_nope"], headers: ["x-herald-csrf": "1"])
        #expect(wrong.status == 401 && wrong.errorField == "key" && wrong.headers["set-cookie"] == nil)
        let client = await t.call("POST", "/v1/console/session", json: ["key": .string(app.client)], headers: ["x-herald-csrf": "1"])
        #expect(client.status == 403 && client.errorField == "key")
    }

    @Test func sessionsExpireWhenIdleAndAtTheAbsoluteLimit() async throws {
        let t = try await TestService()
        let idle = try await signIn(t, key: testAdminKey)
        t.clock.advance(by: ConsoleSessions.idleLimit - 5)
        #expect(await t.call("GET", "/v1/apps", headers: headers(idle)).status == 200)   // use keeps it alive
        t.clock.advance(by: ConsoleSessions.idleLimit - 5)
        #expect(await t.call("GET", "/v1/apps", headers: headers(idle)).status == 200)
        t.clock.advance(by: ConsoleSessions.idleLimit + 1)
        #expect(await t.call("GET", "/v1/apps", headers: headers(idle)).status == 401)

        // In use all along, a session still ends at the absolute limit.
        let busy = try await signIn(t, key: testAdminKey)
        var elapsed: TimeInterval = 0
        while elapsed + ConsoleSessions.idleLimit / 2 < ConsoleSessions.absoluteLimit {
            t.clock.advance(by: ConsoleSessions.idleLimit / 2)
            elapsed += ConsoleSessions.idleLimit / 2
            #expect(await t.call("GET", "/v1/apps", headers: headers(busy)).status == 200)
        }
        t.clock.advance(by: ConsoleSessions.absoluteLimit - elapsed + 1)   // well within the idle limit
        let ended = await t.call("GET", "/v1/apps", headers: headers(busy))
        #expect(ended.status == 401 && ended.errorCode == "session_expired")
    }

    @Test func revokingTheKeyEndsItsSessions() async throws {
        let t = try await TestService()
        let app = try await t.createApp()
        let s = try await signIn(t, key: app.master)
        #expect(await t.call("GET", "/v1/pushes", headers: headers(s)).status == 200)
        let rotated = await t.call("POST", "/v1/apps/\(app.id)/keys/master/rotate", key: testAdminKey)
        #expect(rotated.status == 201)
        let r = await t.call("GET", "/v1/pushes", headers: headers(s))
        #expect(r.status == 401 && r.errorCode == "session_expired")
    }

    @Test func aMasterKeySessionSeesItsAppOnly() async throws {
        let t = try await TestService()
        let mine = try await t.createApp("Mine")
        let other = try await t.createApp("Other")
        try await t.register(other, "other-phone", token: token(7))
        let s = try await signIn(t, key: mine.master)
        #expect(await t.call("GET", "/v1/apps/\(mine.id)", headers: headers(s)).status == 200)
        #expect(await t.call("GET", "/v1/apps/\(other.id)", headers: headers(s)).status == 403)
        #expect(await t.call("GET", "/v1/apps", headers: headers(s)).status == 403)
        // X-Herald-App does not widen a master session.
        let lookup = await t.call("GET", "/v1/installations/other-phone", headers: headers(s, app: other.id))
        #expect(lookup.status == 404)
        // Without a built-in simulator its routes answer 404, for this app's master key as for any.
        #expect(await t.call("GET", "/v1/simulator/devices", headers: headers(s)).errorCode == "simulator_off")
    }

    @Test func consolePagesCarryTheSecurityHeadersAndAreServedCompressedWithETags() async throws {
        let t = try await TestService()
        let page = await t.call("GET", "/console", headers: ["accept-encoding": "gzip, deflate, br"])
        #expect(page.status == 200 && page.headers["content-encoding"] == "gzip")
        let csp = try #require(page.headers["content-security-policy"])
        #expect(csp.contains("default-src 'self'") && csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe"))
        #expect(page.headers["x-frame-options"] == "DENY" && page.headers["x-content-type-options"] == "nosniff")
        #expect(page.headers["referrer-policy"] == "no-referrer")
        let etag = try #require(page.headers["etag"])
        let again = await t.call("GET", "/console", headers: ["if-none-match": etag])
        #expect(again.status == 304 && again.text.isEmpty)
        let plain = await t.call("GET", "/console/app.js")
        #expect(plain.status == 200 && plain.headers["content-encoding"] == nil && plain.headers["content-type"]?.hasPrefix("text/javascript") == true)
        #expect(await t.call("GET", "/console/nothing.js").status == 404)
        #expect(await t.call("GET", "/console/app.js", headers: ["accept-encoding": "gzip;q=0"]).headers["content-encoding"] == nil)
    }
}
