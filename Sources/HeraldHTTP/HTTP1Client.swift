import Foundation
import HeraldIO

/// A small HTTP/1.1 client for the command line, tests and webhooks: the response body whole or streamed piece
/// by piece (server-sent events, JSON lines). Each request has a connection of its own unless `pool` keeps
/// them open for the next request to the same origin.
public struct HTTP1Client: Sendable {
    public let host: String
    public let port: Int
    public let tls: TLSContext?
    public let pool: HTTP1ConnectionPool?

    public init(host: String, port: Int, tls: TLSContext? = nil, pool: HTTP1ConnectionPool? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
        self.pool = pool
    }

    /// `http://host:port` or `https://host:port` (a path after it is ignored).
    public init(url: String, tls: TLSContext? = nil) throws {
        var rest = Substring(url)
        var secure = false
        if rest.hasPrefix("https://") { rest = rest.dropFirst(8); secure = true } else if rest.hasPrefix("http://") { rest = rest.dropFirst(7) }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        let hostPart: Substring, portPart: Int
        if let colon = rest.lastIndex(of: ":"), let p = Int(rest[rest.index(after: colon)...]) {
            hostPart = rest[..<colon]; portPart = p
        } else {
            hostPart = rest; portPart = secure ? 443 : 80
        }
        guard !hostPart.isEmpty else { throw IOError.resolve(host: url, message: "expected http://host:port") }
        let context = secure ? try (tls ?? TLSContext(client: TLSClientConfiguration(alpn: []))) : nil
        self.init(host: String(hostPart).trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: portPart, tls: context)
    }

    /// Sends `request` and returns the whole response.
    public func send(_ request: HTTPRequest, timeout: Duration = .seconds(30)) async throws -> HTTPResponse {
        let collected = BodyCollector()
        let head = try await exchange(request, timeout: timeout) { collected.append($0) }
        return HTTPResponse(status: head.status, headers: head.headers, body: collected.bytes)
    }

    /// Sends `request`; `onBody` gets each piece of the body as it arrives. Returns when the body ends
    /// or the connection closes. Cancel the calling task to stop early: it then throws `CancellationError`.
    public func stream(_ request: HTTPRequest, timeout: Duration = .seconds(30),
                       onBody: @escaping @Sendable ([UInt8]) -> Void) async throws -> (status: Int, headers: HTTPHeaders) {
        let head = try await exchange(request, timeout: timeout, onBody: onBody)
        return (head.status, head.headers)
    }

    private func exchange(_ request: HTTPRequest, timeout: Duration, onBody: @escaping @Sendable ([UInt8]) -> Void) async throws -> ResponseHead {
        if let pool { return try await pool.exchange(request, host: host, port: port, tls: tls, timeout: timeout, onBody: onBody) }
        let exchange = ClientExchange(request: request, host: host, port: port, onBody: onBody)
        let loop = EventLoopGroup.shared.next()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { cont in
                loop.execute {
                    // Cancelled before it started (the handler below ran first): nothing to open.
                    if exchange.cancelled { return cont.resume(throwing: CancellationError()) }
                    exchange.continuation = cont
                    StreamConnection.connect(host: host, port: port, tls: tls, timeout: timeout, loop: loop, delegate: exchange)
                }
            }
        } onCancel: {
            loop.execute { exchange.cancel() }
        }
    }
}

extension HTTP1Client {
    /// The request as it goes on the wire. Without `keepAlive` it asks the server to close after answering.
    static func requestBytes(_ request: HTTPRequest, hostHeader: String, keepAlive: Bool) -> [UInt8] {
        var text = "\(request.method) \(request.target) HTTP/1.1\r\nHost: \(hostHeader)\r\n"
        if !keepAlive { text += "Connection: close\r\n" }
        for h in request.headers where !h.name.caseInsensitiveEquals("content-length") && !h.name.caseInsensitiveEquals("host") {
            text += "\(h.name): \(h.value)\r\n"
        }
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) {
            text += "Content-Length: \(request.body.count)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8) + request.body
    }
}

private final class BodyCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [UInt8] = []
    func append(_ b: [UInt8]) { lock.lock(); storage += b; lock.unlock() }
    var bytes: [UInt8] { lock.lock(); defer { lock.unlock() }; return storage }
}

/// One request/response on its own connection; confined to the connection's loop.
private final class ClientExchange: ConnectionDelegate, @unchecked Sendable {
    let request: HTTPRequest
    let hostHeader: String
    let onBody: @Sendable ([UInt8]) -> Void
    var continuation: CheckedContinuation<ResponseHead, Error>?
    private var stream: StreamConnection?
    private var reader: HTTP1ResponseReader
    private var done = false

    init(request: HTTPRequest, host: String, port: Int, onBody: @escaping @Sendable ([UInt8]) -> Void) {
        self.request = request
        self.hostHeader = "\(host):\(port)"
        self.onBody = onBody
        reader = HTTP1ResponseReader(method: request.method)
    }

    func streamDidBecomeReady(_ stream: StreamConnection) {
        self.stream = stream
        if done { return stream.close() }   // cancelled while connecting
        stream.write(HTTP1Client.requestBytes(request, hostHeader: hostHeader, keepAlive: false))
    }

    func stream(_ stream: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        do { try reader.read(bytes, onBody: onBody) } catch { return fail(error) }
        if reader.isComplete { finish() }
    }

    func streamDidClose(_ stream: StreamConnection, error: IOError?) {
        guard reader.head != nil else { return fail(error ?? IOError.connectionClosed) }
        do { try reader.endOfStream() } catch { return fail(error) }
        finish()
    }

    private(set) var cancelled = false

    /// The task was cancelled: the request ends with `CancellationError`, whatever stage it is at.
    func cancel() {
        cancelled = true
        fail(CancellationError())
    }

    private func finish() {
        guard !done else { return }
        done = true
        if let head = reader.head { continuation?.resume(returning: head) } else { continuation?.resume(throwing: IOError.connectionClosed) }
        continuation = nil
        stream?.close()
    }

    private func fail(_ error: Error) {
        guard !done else { return }
        done = true
        continuation?.resume(throwing: error)
        continuation = nil
        stream?.close()
    }
}
