import HeraldCrypto

/// Receives what an `HTTP2Server` gets. Every method is called on the event-loop thread that owns the
/// connection: answer at once (accept-all paths stay on that thread for speed) or keep the responder and
/// answer later from any thread. Never block in here.
public protocol HTTP2ServerDelegate: AnyObject, Sendable {
    func connectionOpened(_ connection: HTTP2ServerConnection)
    func handle(_ request: HTTPRequest, on connection: HTTP2ServerConnection, responder: HTTP2Responder)
    func connectionClosed(_ connection: HTTP2ServerConnection)
    /// When non-nil, every request on `connection` gets this answer without being decoded and `handle`
    /// is never called for it. Asked once per connection, after `connectionOpened`.
    func fixedResponse(for connection: HTTP2ServerConnection) -> HTTP2FixedResponse?
}

extension HTTP2ServerDelegate {
    public func connectionOpened(_ connection: HTTP2ServerConnection) {}
    public func connectionClosed(_ connection: HTTP2ServerConnection) {}
    public func fixedResponse(for connection: HTTP2ServerConnection) -> HTTP2FixedResponse? { nil }
}
