/// An HTTP CONNECT proxy for outbound connections.
public struct ProxyConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// `user:password` for Basic proxy authentication.
    public var credentials: String?

    public init(host: String, port: Int, credentials: String? = nil) {
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// Parses `http://[user:pass@]host:port`.
    public init?(url: String) {
        var rest = Substring(url)
        if let r = rest.range(of: "://") { rest = rest[r.upperBound...] }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        var creds: String?
        if let at = rest.lastIndex(of: "@") {
            creds = String(rest[..<at])
            rest = rest[rest.index(after: at)...]
        }
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]) else { return nil }
        self.init(host: String(rest[..<colon]), port: port, credentials: creds)
    }
}
