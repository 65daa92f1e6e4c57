import Foundation
import HeraldHTTP
import HeraldStore
import Synchronization

/// The middleware chain in front of every route: routing (404/405), body limit (413), authentication
/// (401), key scope (403), per-caller rate limit (429), then the handler; any error becomes the JSON error
/// body (a `ServiceError` through `APIError(_:)`, a store failure through `ServiceError(_:)`). Nothing is written to the store before all of these pass. Over HTTP/1.1 the checks that need only
/// the head (`bodyPolicy`) run before any of the body is read.
final class APIHandler: Sendable {
    let router: Router
    let authenticator: KeyAuthenticator
    let limiter: RateLimiter
    let metrics: Metrics
    let clock: any HeraldClock
    let maxBodyBytes: Int
    /// The dialect of routes that name none: Herald's own error body, and the extra credentials (the
    /// console's session) that Herald's routes accept.
    let defaultDialect: APIDialect
    let log: LogHandler

    init(router: Router, authenticator: KeyAuthenticator, limiter: RateLimiter, metrics: Metrics, clock: any HeraldClock, maxBodyBytes: Int,
         defaultDialect: APIDialect = .herald, log: @escaping LogHandler) {
        self.router = router; self.authenticator = authenticator; self.limiter = limiter
        self.metrics = metrics; self.clock = clock; self.maxBodyBytes = maxBodyBytes; self.defaultDialect = defaultDialect; self.log = log
    }

    /// What the HTTP server does with a request's body, from its head alone: an unknown route, a missing
    /// key or an announced body over the route's limit is answered without reading the body; the import
    /// route streams; every other body is read up to its route's limit.
    func bodyPolicy(_ head: HTTPRequestHead) -> HTTPBodyPolicy {
        let rejection: (HTTPResponse, String)
        switch router.match(method: head.method, path: head.path) {
        case .found(let route, _):
            let limit = route.maxBodyBytes ?? maxBodyBytes
            let dialect = route.dialect ?? defaultDialect
            if route.access != .open && Self.authorization(head.headers) == nil && dialect.authentication(presentedIn: head.headers) == nil {
                rejection = (dialect.errorResponse(.unauthorized, [:]), route.pattern)
            } else if let length = head.framing.announcedLength, length > limit {
                rejection = (dialect.errorResponse(Self.bodyTooLarge(length, limit: limit), [:]), route.pattern)
            } else {
                return route.streamsBody ? .stream(limit: limit) : .collect(limit: limit)
            }
        case let unmatched:
            rejection = (Self.unmatched(head.method, head.path, unmatched), "unmatched")
        }
        countRequest(route: rejection.1, status: rejection.0.status)
        return .reject(rejection.0)
    }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let (response, pattern) = await route(request)
        countRequest(route: pattern, status: response.status)
        return response
    }

    /// `herald_http_requests_total`'s series for each route pattern and status, named once: rendering the
    /// labels and hashing the series' text per request was 8% of the work of answering `/healthz`. Bounded
    /// by the routes times the statuses they answer.
    private let requestSeries = Mutex<[RouteStatus: Metrics.Key]>([:])
    private struct RouteStatus: Hashable { var route: String; var status: Int }

    private func countRequest(route: String, status: Int) {
        let id = RouteStatus(route: route, status: status)
        let key = requestSeries.withLock { series in
            if let key = series[id] { return key }
            let key = metrics.key("herald_http_requests_total", [("route", route), ("status", String(status))])
            series[id] = key
            return key
        }
        metrics.increment(key)
    }

    private func route(_ request: HTTPRequest) async -> (HTTPResponse, String) {
        let now = clock.now()
        switch router.match(method: request.method, path: request.path) {
        case .found(let route, let params):
            let dialect = route.dialect ?? defaultDialect
            do {
                let limit = route.maxBodyBytes ?? maxBodyBytes
                if request.body.count > limit { throw Self.bodyTooLarge(request.body.count, limit: limit) }
                var principal: Principal?
                if route.access != .open {
                    let p = if let scheme = dialect.authentication(presentedIn: request.headers) {
                        try await scheme.authenticate(request, now: now)
                    } else {
                        try await authenticator.authenticate(Self.authorization(request.headers))
                    }
                    try Self.authorize(p, route.access, params)
                    if let wait = limiter.take(p.role == .client(appID: p.appID ?? "") ? "\(p.keyID)|\(request.remoteAddress)" : p.keyID, now: now) {
                        var h = HTTPHeaders(); h.set("retry-after", String(Int(wait.rounded(.up))))
                        return (dialect.errorResponse(APIError(status: 429, code: "rate_limited", message: "Too many requests for this key; retry after \(Int(wait.rounded(.up))) s."), h), route.pattern)
                    }
                    principal = p
                }
                let context = RequestContext(request: request, parameters: params, principal: principal, now: now)
                return (try await route.handler(context), route.pattern)
            } catch let error as APIError {
                if error.status >= 500 { log(.error, "\(request.method) \(route.pattern) answered \(error)") }
                return (dialect.errorResponse(error, [:]), route.pattern)
            } catch let error as HTTPBodyError {
                return (dialect.errorResponse(Self.apiError(error), [:]), route.pattern)
            } catch {
                if let domain = ServiceError(error) {
                    // The store's own detail (which disk, which limit) is for the operator, not the caller.
                    if domain.kind == .storageFull { log(.error, "\(request.method) \(route.pattern) answered 507: \(error)") }
                    if domain.kind == .unavailable { log(.error, "\(request.method) \(route.pattern) answered 503: \(error)") }
                    return (dialect.errorResponse(APIError(domain), [:]), route.pattern)
                }
                // Details go to the operator's log, not to the caller.
                log(.error, "\(request.method) \(route.pattern) failed: \(error)")
                return (dialect.errorResponse(APIError(status: 500, code: "internal", message: "Internal error; the request was not completed. Retry, and report it if it persists."), [:]), route.pattern)
            }
        case let unmatched:
            return (Self.unmatched(request.method, request.path, unmatched), "unmatched")
        }
    }

    /// 404 or 405 for a request no route takes.
    private static func unmatched(_ method: String, _ path: Substring, _ match: Router.Match) -> HTTPResponse {
        guard case .methodNotAllowed(let allowed) = match else {
            return .error(APIError(status: 404, code: "route_not_found", message: "No route \(method) \(path); see /openapi.json."))
        }
        var h = HTTPHeaders(); h.set("allow", allowed.joined(separator: ", "))
        return .error(APIError(status: 405, code: "method_not_allowed", message: "\(method) is not allowed here; use \(allowed.joined(separator: " or "))."), headers: h)
    }

    private static func bodyTooLarge(_ length: Int, limit: Int) -> APIError {
        APIError(status: 413, code: "body_too_large", message: "The body is \(length) bytes; this route accepts at most \(limit).")
    }

    /// A streamed body that broke off, as the caller should hear it.
    private static func apiError(_ error: HTTPBodyError) -> APIError {
        switch error {
        case .tooLarge(let limit): APIError(status: 413, code: "body_too_large", message: "The body is larger than this route's limit of \(limit) bytes; split it.")
        case .timedOut: APIError(status: 408, code: "request_timeout", message: "The body stopped arriving: \(error).")
        case .malformed, .connectionClosed: APIError(status: 400, code: "bad_request", message: "The body could not be read: \(error).")
        }
    }

    /// The bearer header, or LeanCloud's `X-LC-Key: <key>` / `X-LC-Key: <key>,master` as one.
    static func authorization(_ headers: HTTPHeaders) -> String? {
        if let header = headers["authorization"] { return header }
        guard let lc = headers["x-lc-key"], let key = lc.split(separator: ",").first else { return nil }
        return "Bearer " + key.trimmingSpaces
    }

    static func authorize(_ p: Principal, _ access: Access, _ params: [String: String]) throws {
        switch (access, p.role) {
        case (.open, _), (.admin, .admin), (.appAdmin, .admin), (.master, .master), (.client, .master), (.client, .client):
            return
        case (.appAdmin, .master(let appID)) where appID == params["appId"]:
            return
        case (.appAdmin, .master):
            throw APIError.forbidden("This key belongs to another app.")
        case (.admin, _), (.appAdmin, _):
            throw APIError.forbidden("This route needs the admin key.")
        case (.master, .admin), (.client, .admin):
            throw APIError.forbidden("Admin keys manage apps; use the app's master key for its data.")
        case (.master, .client):
            throw APIError.forbidden("Client keys may only register installations, change their tags and report opens; use the master key.")
        }
    }
}
