/// An answer a server gives to every request without decoding it: the simulator's accept-all counting
/// mode. Request headers other than `echoedHeader` are never turned into strings and bodies are dropped
/// as they arrive, so a request costs little more than nghttp2's own parsing.
public struct HTTP2FixedResponse: Sendable {
    public var status: Int
    /// Sent with every response (names lowercase).
    public var headers: [(name: String, value: String)]
    /// A request header (lowercase) whose value is copied into the response, APNs' `apns-id`.
    public var echoedHeader: String?
    /// The value of `echoedHeader` for a request without one.
    public var makeEchoedValue: @Sendable () -> String
    /// Headers with a fresh value in every response (APNs' `apns-unique-id` on sandbox).
    public var generatedHeaders: [(name: String, makeValue: @Sendable () -> String)]
    /// Called on the loop once per complete request, before it is answered.
    public var onRequest: @Sendable () -> Void

    public init(status: Int, headers: [(name: String, value: String)] = [], echoedHeader: String? = nil,
                makeEchoedValue: @escaping @Sendable () -> String = { "" },
                generatedHeaders: [(name: String, makeValue: @Sendable () -> String)] = [],
                onRequest: @escaping @Sendable () -> Void = {}) {
        self.status = status
        self.headers = headers
        self.echoedHeader = echoedHeader
        self.makeEchoedValue = makeEchoedValue
        self.generatedHeaders = generatedHeaders
        self.onRequest = onRequest
    }
}
