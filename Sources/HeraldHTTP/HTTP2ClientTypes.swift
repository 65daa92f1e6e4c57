import HeraldIO

/// A request for `HTTP2ClientConnection`. `:scheme` and `:authority` come from the connection.
public struct HTTP2ClientRequest: Sendable {
    public var method: String
    public var path: String
    /// Fields many requests share (encoded once), followed by `ownFields`, this request's alone.
    public var sharedFields: HTTP2HeaderFields
    /// Sent as literals that HPACK never indexes: a value of one request would only take a place in the
    /// table from the shared fields (`HTTP2HeaderFields.neverIndexed`).
    public var ownFields: [(name: String, value: String)]
    /// Shared, copy-on-write: many requests can carry the same encoded payload without copying it.
    public var body: [UInt8]

    public init(method: String = "POST", path: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.init(method: method, path: path, sharedFields: .empty, ownFields: headers, body: body)
    }

    public init(method: String = "POST", path: String, sharedFields: HTTP2HeaderFields,
                ownFields: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.sharedFields = sharedFields
        self.ownFields = ownFields
        self.body = body
    }
}

public struct HTTP2ClientResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why a request got no response. `isSafeToRetry` says whether the server certainly did not process it.
public enum HTTP2ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Refused (REFUSED_STREAM, above a GOAWAY's last stream id, or never sent): not processed.
    case notProcessed(String)
    /// The connection died with the request in flight: it may or may not have been processed.
    case connectionLost(String)
    /// The server's GOAWAY counted the request among those it processes (at or below its last stream id),
    /// then the connection closed before the answer: it was most likely processed, so it must not be sent again.
    case unansweredAfterGoAway(String)
    /// No response before the request's deadline.
    case timeout
    /// The server reset the stream with an HTTP/2 error code.
    case streamReset(UInt32)
    /// Could not connect (DNS, TCP, proxy, TLS, ALPN).
    case connectFailed(String)

    public var isSafeToRetry: Bool {
        if case .notProcessed = self { return true }
        if case .connectFailed = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case let .notProcessed(why): "request not processed by the server (\(why)); safe to retry"
        case let .connectionLost(why): "connection lost with the request in flight (\(why))"
        case let .unansweredAfterGoAway(why): "the server took the request before GOAWAY but closed without answering (\(why)); not safe to retry"
        case .timeout: "no response before the request deadline"
        case let .streamReset(code): "the server reset the stream (HTTP/2 error \(code))"
        case let .connectFailed(why): "cannot connect: \(why)"
        }
    }
}

public typealias HTTP2Completion = @Sendable (Result<HTTP2ClientResponse, HTTP2ClientError>) -> Void

/// Receives a request's outcome, on the connection's loop (so it must be quick). An object that exists
/// per request anyway (the APNs client's delivery) can be its own handler, which saves allocating a
/// closure for every request; `HTTP2ClientConnection.send(_:deadline:completion:)` wraps a closure.
public protocol HTTP2ResponseHandler: AnyObject, Sendable {
    func requestCompleted(_ result: Result<HTTP2ClientResponse, HTTP2ClientError>)
}

/// A closure as a response handler.
final class ClosureResponseHandler: HTTP2ResponseHandler {
    let completion: HTTP2Completion
    init(_ completion: @escaping HTTP2Completion) { self.completion = completion }
    func requestCompleted(_ result: Result<HTTP2ClientResponse, HTTP2ClientError>) { completion(result) }
}
