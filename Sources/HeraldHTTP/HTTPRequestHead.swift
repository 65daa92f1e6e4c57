/// A request's method, target and headers: all the server knows before any of its body is read. Servers
/// decide from it whether and how to read the body (`HTTPBodyPolicy`).
public struct HTTPRequestHead: Sendable {
    public var method: String
    /// The request target as sent: path plus optional `?query`.
    public var target: String
    public var headers: HTTPHeaders
    /// The peer's address as text (`127.0.0.1:53122`).
    public var remoteAddress: String
    /// How the body is framed: its announced length, or chunked (length unknown until it ends).
    public var framing: HTTPBodyFraming

    public init(method: String, target: String, headers: HTTPHeaders = [:], remoteAddress: String = "", framing: HTTPBodyFraming = .none) {
        self.method = method
        self.target = target
        self.headers = headers
        self.remoteAddress = remoteAddress
        self.framing = framing
    }

    /// The path without the query string.
    public var path: Substring { HTTPRequest.path(of: target) }
}

/// How a request's body is delimited on the wire.
public enum HTTPBodyFraming: Sendable, Equatable {
    /// No body.
    case none
    /// `Content-Length` bytes.
    case length(Int)
    /// `Transfer-Encoding: chunked`: the length is known only once the last chunk arrives.
    case chunked

    /// The announced length, if any: what a limit can be checked against before reading.
    public var announcedLength: Int? {
        if case let .length(n) = self { return n }
        return nil
    }

    public var hasBody: Bool { self != .none }
}

/// What the server does with a request's body, decided from its head before any of the body is read.
public enum HTTPBodyPolicy: Sendable {
    /// Read the whole body, at most `limit` bytes, then call the handler. A body announced or found to be
    /// larger gets 413 and the connection closes; the bytes past the limit are never kept.
    case collect(limit: Int)
    /// Call the handler at once with `HTTPRequest.bodyStream`, which yields the body as it arrives, at most
    /// `limit` bytes; reading from the socket waits while the handler has not taken what arrived.
    case stream(limit: Int)
    /// Answer now without reading the body (401, 404, 413 from the head alone). The connection closes
    /// after the answer when a body was announced, since its bytes would otherwise be read as a request.
    case reject(HTTPResponse)
}

/// Decides the body policy of each request; called on the event loop, so it must be quick and never block.
public typealias HTTPBodyPolicyProvider = @Sendable (HTTPRequestHead) -> HTTPBodyPolicy
