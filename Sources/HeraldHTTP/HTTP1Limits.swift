/// The limits and timeouts of the HTTP/1.1 server. Every limit holds however the bytes arrive, in one read
/// or a byte at a time, and is checked before the bytes past it are kept. docs/server.md lists them.
public struct HTTP1Limits: Sendable, Equatable {
    /// The longest request line (method, target and version); 414 past it.
    public var maxRequestLineBytes: Int = 8 * 1024
    /// All header lines of one request together, trailers included; 431 past it.
    public var maxHeaderBytes: Int = 64 * 1024
    /// Header fields in one request, trailers included; 431 past it.
    public var maxHeaderCount: Int = 128
    /// From the first byte of a request to the blank line that ends its head; 408 and close past it.
    /// This is what ends a slowloris connection that trickles header bytes. A TLS handshake has as long.
    public var headerTimeout: Duration = .seconds(10)
    /// The longest silence while a request body is being read; 408 and close past it. Past it, a body must
    /// also have kept 1 KiB/s on average since it began, so a byte just before each silence does not help.
    public var bodyTimeout: Duration = .seconds(30)
    /// How long a keep-alive connection may wait for its next request; closed quietly past it.
    public var idleTimeout: Duration = .seconds(60)
    /// How long a response may sit unread by the client (nothing taken by the socket); closed past it.
    public var writeTimeout: Duration = .seconds(30)
    /// Connections open at once on one server; a connection accepted past it is closed at once, so a flood
    /// of idle connections cannot use up the process's file descriptors.
    public var maxConnections: Int = 1024

    public init() {}
}
