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

    var parameterCount: Int { segments.count { $0.first == "{" && $0.last == "}" } }

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
///
/// Routes without parameters are found by their segments in one dictionary lookup; only routes with
/// parameters and as many segments as the path are tried one by one. Walking every route in turn (150 with
/// the LeanCloud, JPush and console routes) was a third of the work of answering `/healthz`.
public struct Router: Sendable {
    public private(set) var routes: [Route]

    /// Routes without parameters by their segments, in declaration order (one per method, usually).
    private let literal: [[Substring]: [Route]]
    /// Routes with parameters by segment count; literal segments win over parameters, so fewer parameters first.
    private let parameterized: [Int: [Route]]

    public init(routes: [Route]) {
        self.routes = routes
        literal = Dictionary(grouping: routes.filter { $0.parameterCount == 0 }, by: \.segments)
        let ordered = routes.enumerated().filter { $0.element.parameterCount > 0 }.sorted { a, b in
            a.element.parameterCount != b.element.parameterCount ? a.element.parameterCount < b.element.parameterCount : a.offset < b.offset
        }.map(\.element)
        parameterized = Dictionary(grouping: ordered, by: \.segments.count)
    }

    public enum Match {
        case found(Route, [String: String])
        case methodNotAllowed([String])
        case notFound
    }

    public func match(method: String, path: Substring) -> Match {
        // Split on the bytes: `split` over Characters breaks graphemes at each of the path's bytes (7k
        // instructions for `/v1/installations`). A `/` is never part of another UTF-8 sequence.
        let parts = path.utf8.split(separator: UInt8(ascii: "/")).map { Substring($0) }
        var allowed: [String] = []
        for route in literal[parts] ?? [] {
            if route.method == method { return .found(route, [:]) }
            allowed.append(route.method)
        }
        for route in parameterized[parts.count] ?? [] {
            guard let params = route.match(parts) else { continue }
            if route.method == method { return .found(route, params) }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }
}
