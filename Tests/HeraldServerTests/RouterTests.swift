import HeraldHTTP
import Testing
@testable import HeraldServer

/// The router's precedence, which its index of literal paths must keep: literal segments win over
/// parameters, fewer parameters win over more, declaration order breaks ties, and a path that matches
/// only under other methods is a 405 naming them.
@Suite struct RouterTests {
    static func route(_ method: String, _ pattern: String, _ name: String) -> Route {
        Route(method, pattern, .open, name) { _ in .json(200, value: .string(name)) }
    }

    let router = Router(routes: [
        route("GET", "/v1/installations/{id}", "get"),
        route("DELETE", "/v1/installations/{id}", "delete"),
        route("POST", "/v1/installations/{id}/tags", "tags"),
        route("GET", "/v1/installations/export", "export"),
        route("POST", "/v1/installations", "upsert"),
        route("GET", "/v1/{kind}/{id}", "generic"),
        route("GET", "/healthz", "health"),
        route("GET", "/healthz", "shadowed"),
    ])

    func found(_ method: String, _ path: Substring) -> (String, [String: String])? {
        guard case .found(let route, let params) = router.match(method: method, path: path) else { return nil }
        return (route.summary, params)
    }

    @Test func aLiteralPathWinsOverTheParametersThatAlsoMatchIt() {
        #expect(found("GET", "/v1/installations/export")?.0 == "export")
        #expect(found("GET", "/v1/installations/abc")?.0 == "get")
        #expect(found("GET", "/v1/installations/abc")?.1 == ["id": "abc"])
    }

    @Test func fewerParametersWinAndDeclarationOrderBreaksTies() {
        #expect(found("GET", "/v1/pushes/p1")?.0 == "generic")
        #expect(found("GET", "/v1/pushes/p1")?.1 == ["kind": "pushes", "id": "p1"])
        #expect(found("GET", "/healthz")?.0 == "health")
    }

    @Test func emptySegmentsAreIgnoredAndParametersArePercentDecoded() {
        #expect(found("POST", "/v1//installations/")?.0 == "upsert")
        #expect(found("POST", "/v1/installations/a%20b/tags")?.1 == ["id": "a b"])
    }

    @Test func aPathKnownUnderOtherMethodsIs405NamingThemAndAnUnknownOneIs404() {
        guard case .methodNotAllowed(let allowed) = router.match(method: "PUT", path: "/v1/installations/export") else {
            Issue.record("expected 405"); return
        }
        #expect(allowed == ["GET", "GET", "DELETE", "GET"])
        guard case .methodNotAllowed(let onlyPost) = router.match(method: "GET", path: "/v1/installations") else {
            Issue.record("expected 405"); return
        }
        #expect(onlyPost == ["POST"])
        guard case .notFound = router.match(method: "GET", path: "/v2/a/b/c") else { Issue.record("expected 404"); return }
    }
}
