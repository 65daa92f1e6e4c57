import Foundation
import Testing
import HeraldHTTP
@testable import HeraldServer

/// A family of routes with its own credentials and error body (as LeanCloud's and JPush's routes have),
/// beside Herald's bearer keys, through the same middleware chain.
@Suite struct APIDialectTests {
    /// Credentials in an `x-test-app` header: "good" is app1's client, anything else is refused.
    struct HeaderAuthentication: CallerAuthentication {
        func presents(_ headers: HTTPHeaders) -> Bool { headers["x-test-app"] != nil }
        func authenticate(_ request: HTTPRequest, now: Date) async throws -> Principal {
            guard request.headers["x-test-app"] == "good" else { throw APIError.unauthorized }
            return Principal(keyID: "test:app1", role: .client(appID: "app1"))
        }
    }

    static let dialect = APIDialect(authentications: [HeaderAuthentication()]) { error, headers in
        .json(error.status, ["code": .string(error.code), "error": .string(error.message)], headers: headers)
    }

    func handler() async throws -> APIHandler {
        let service = try await TestService()
        let routes = [
            Route("POST", "/compat/echo", .client, "echo", maxBodyBytes: 10, dialect: Self.dialect) { ctx in
                .json(200, ["app": .string(try ctx.appID)])
            },
            Route("GET", "/native", .client, "native") { ctx in .json(200, ["app": .string(try ctx.appID)]) },
        ]
        return APIHandler(router: Router(routes: routes), authenticator: service.service.env.authenticator,
                          limiter: RateLimiter(rate: 0, burst: 0), metrics: Metrics(), clock: service.clock, maxBodyBytes: 1000, log: { _, _ in })
    }

    @Test func theDialectsCredentialsAdmitAndItsErrorBodyIsUsed() async throws {
        let api = try await handler()
        let ok = await api.handle(HTTPRequest(method: "POST", target: "/compat/echo", headers: ["x-test-app": "good"], body: Array("{}".utf8)))
        #expect(ok.status == 200)
        #expect(try JSON(parsing: ok.body)["app"]?.stringValue == "app1")

        let wrong = await api.handle(HTTPRequest(method: "POST", target: "/compat/echo", headers: ["x-test-app": "bad"], body: Array("{}".utf8)))
        #expect(wrong.status == 401)
        let body = try JSON(parsing: wrong.body)
        #expect(body["code"]?.stringValue == "unauthorized")
        #expect(body["error"]?.stringValue?.isEmpty == false)
    }

    @Test func checksFromTheHeadAloneAnswerInTheDialect() async throws {
        let api = try await handler()
        // No credentials of any kind: refused before the body is read, in the dialect's body.
        guard case .reject(let missing) = api.bodyPolicy(HTTPRequestHead(method: "POST", target: "/compat/echo")) else {
            Issue.record("expected a rejection"); return
        }
        #expect(missing.status == 401)
        #expect(try JSON(parsing: missing.body)["error"]?.stringValue != nil)
        // The dialect's own credentials count as credentials; an announced body over the limit is a 413.
        let head = HTTPRequestHead(method: "POST", target: "/compat/echo", headers: ["x-test-app": "good"], framing: .length(11))
        guard case .reject(let tooLarge) = api.bodyPolicy(head) else { Issue.record("expected a rejection"); return }
        #expect(tooLarge.status == 413)
        #expect(try JSON(parsing: tooLarge.body)["code"]?.stringValue == "body_too_large")
    }

    @Test func heraldsOwnRoutesIgnoreAnotherFamilysCredentials() async throws {
        let api = try await handler()
        let response = await api.handle(HTTPRequest(method: "GET", target: "/native", headers: ["x-test-app": "good"]))
        #expect(response.status == 401)
        #expect(try JSON(parsing: response.body)["error"]?["code"]?.stringValue == "unauthorized")
    }
}
