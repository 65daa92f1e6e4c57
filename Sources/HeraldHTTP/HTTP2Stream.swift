/// State of one HTTP/2 stream on a connection: what arrived and the body still to send.
/// Handed over to the connection's loop once (a client request queued from another thread) and used
/// only there afterwards, which is why it is `@unchecked Sendable`.
class HTTP2Stream: @unchecked Sendable {
    let id: Int32
    /// `:status` of a response, parsed without building strings.
    var status = 0
    /// `:method` and `:path` of a request; the other pseudo-headers are not kept.
    var method = ""
    var path = ""
    /// Regular fields only.
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    var outbound: [UInt8] = []
    var outboundOffset = 0

    init(id: Int32) { self.id = id }
}
