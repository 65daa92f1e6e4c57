import HeraldHTTP

/// A route: method, path pattern with `{name}` segments, who may call it, and the handler.
public struct Route: Sendable {
    public typealias Handler = @Sendable (RequestContext) async throws -> HTTPResponse

    public var method: String
    public var pattern: String
    public var access: Access
    /// One line for the OpenAPI document and docs.
    public var summary: String
    /// Largest body accepted, when it differs from the service default (imports).
    public var maxBodyBytes: Int?
    /// The handler reads the body as it arrives (`request.bodyStream`) instead of receiving it whole, so a
    /// large body is never held in memory.
    public var streamsBody: Bool
    /// The credentials and error format of a family of routes (LeanCloud's, JPush's); nil for Herald's own,
    /// which use the handler's default dialect.
    public var dialect: APIDialect?
    let handler: Handler
    let segments: [Substring]

    public init(_ method: String, _ pattern: String, _ access: Access, _ summary: String, maxBodyBytes: Int? = nil, streamsBody: Bool = false,
                dialect: APIDialect? = nil, handler: @escaping Handler) {
        self.method = method; self.pattern = pattern; self.access = access; self.summary = summary
        self.maxBodyBytes = maxBodyBytes; self.streamsBody = streamsBody; self.dialect = dialect; self.handler = handler
        segments = pattern.split(separator: "/")
    }

    func match(_ path: [Substring]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        var params: [String: String] = [:]
        for (p, s) in zip(path, segments) {
            if s.first == "{" && s.last == "}" {
                params[String(s.dropFirst().dropLast())] = String(p).removingPercentEncoding ?? String(p)
            } else if p != s {
                return nil
            }
        }
        return params
    }
}

/// Finds the route for a method and path.
public struct Router: Sendable {
    public private(set) var routes: [Route]

    private let ordered: [Route]

    public init(routes: [Route]) {
        self.routes = routes
        // Literal segments win over parameters: try routes with fewer parameters first.
        ordered = routes.enumerated().sorted { a, b in
            let pa = a.element.segments.filter { $0.first == "{" }.count, pb = b.element.segments.filter { $0.first == "{" }.count
            return pa != pb ? pa < pb : a.offset < b.offset
        }.map(\.element)
    }

    public enum Match {
        case found(Route, [String: String])
        case methodNotAllowed([String])
        case notFound
    }

    public func match(method: String, path: Substring) -> Match {
        let parts = path.split(separator: "/")
        var allowed: [String] = []
        for route in ordered {
            guard let params = route.match(parts) else { continue }
            if route.method == method { return .found(route, params) }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }
}
