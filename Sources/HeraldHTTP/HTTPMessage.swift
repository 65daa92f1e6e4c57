/// A request as the HTTP/1.1 server and the HTTP/2 server hand it to a handler.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The request target as sent: path plus optional `?query`.
    public var target: String
    public var headers: HTTPHeaders
    /// The whole body, when the server collected it (`HTTPBodyPolicy.collect`); empty when it streams.
    public var body: [UInt8]
    /// The body as it arrives, when the route asked for streaming (`HTTPBodyPolicy.stream`); nil otherwise.
    public var bodyStream: HTTPBodyStream?
    /// The peer's address as text (`127.0.0.1:53122`), for logs and rate limits.
    public var remoteAddress: String

    public init(method: String, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [], bodyStream: HTTPBodyStream? = nil,
                remoteAddress: String = "") {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.bodyStream = bodyStream
        self.remoteAddress = remoteAddress
    }

    /// The path without the query string.
    public var path: Substring { Self.path(of: target) }

    static func path(of target: String) -> Substring {
        // Searched over contiguous bytes: Character iteration, and even a generic search through
        // String.UTF8View, showed in the simulator's profile.
        var bytes = target
        guard let queryStart = bytes.withUTF8({ $0.firstIndex(of: UInt8(ascii: "?")) }) else { return target[...] }
        return target[..<target.utf8.index(target.startIndex, offsetBy: queryStart)]
    }

    /// Query parameters, percent-decoded; a repeated name keeps every value in order.
    public var query: [(name: String, value: String)] {
        guard let q = target.firstIndex(of: "?") else { return [] }
        return target[target.index(after: q)...].split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).formDecoded
            let value = parts.count > 1 ? String(parts[1]).formDecoded : ""
            return (name, value)
        }
    }

    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
}

/// A response. `stream`, when set, is sent after `body` with chunked transfer encoding (HTTP/1.1)
/// until the stream finishes: server-sent events and JSON-lines feeds use it.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var stream: AsyncStream<[UInt8]>?

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = [], stream: AsyncStream<[UInt8]>? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stream = stream
    }

    public init(status: Int, json: String, headers: HTTPHeaders = [:]) {
        var h = headers
        h.set("content-type", "application/json")
        self.init(status: status, headers: h, body: Array(json.utf8))
    }
}

/// What the HTTP/1.1 server calls for each request. Runs on the cooperative pool, never on a loop thread.
public typealias HTTPHandler = @Sendable (HTTPRequest) async -> HTTPResponse

extension String {
    /// `application/x-www-form-urlencoded` decoding: `+` is a space, `%XX` a byte.
    var formDecoded: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var it = utf8.makeIterator()
        while let c = it.next() {
            switch c {
            case UInt8(ascii: "+"): bytes.append(0x20)
            case UInt8(ascii: "%"):
                if let h = it.next(), let l = it.next(), let v = UInt8(String(decoding: [h, l], as: UTF8.self), radix: 16) {
                    bytes.append(v)
                }
            default: bytes.append(c)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
