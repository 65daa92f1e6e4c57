import Foundation
import HeraldIO

/// A small HTTP/1.1 client for the command line and tests: one connection per request, the response
/// body whole or streamed piece by piece (server-sent events, JSON lines).
public struct HTTP1Client: Sendable {
    public let host: String
    public let port: Int
    public let tls: TLSContext?

    public init(host: String, port: Int, tls: TLSContext? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
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
    /// or the connection closes. Cancel the calling task to stop early.
    public func stream(_ request: HTTPRequest, timeout: Duration = .seconds(30),
                       onBody: @escaping @Sendable ([UInt8]) -> Void) async throws -> (status: Int, headers: HTTPHeaders) {
        let head = try await exchange(request, timeout: timeout, onBody: onBody)
        return (head.status, head.headers)
    }

    private func exchange(_ request: HTTPRequest, timeout: Duration, onBody: @escaping @Sendable ([UInt8]) -> Void) async throws -> ResponseHead {
        let exchange = ClientExchange(request: request, host: host, port: port, onBody: onBody)
        let loop = EventLoopGroup.shared.next()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { cont in
                loop.execute {
                    exchange.continuation = cont
                    StreamConnection.connect(host: host, port: port, tls: tls, timeout: timeout, loop: loop, delegate: exchange)
                }
            }
        } onCancel: {
            loop.execute { exchange.cancel() }
        }
    }
}

struct ResponseHead: Sendable {
    var status: Int
    var headers: HTTPHeaders
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
    private var buffer: [UInt8] = []
    private var head: ResponseHead?
    private var remaining: Int?          // content-length left
    private var chunked = false
    private var chunkLeft = 0            // bytes left in the current chunk (+2 for its CRLF once started)
    private var done = false

    init(request: HTTPRequest, host: String, port: Int, onBody: @escaping @Sendable ([UInt8]) -> Void) {
        self.request = request
        self.hostHeader = "\(host):\(port)"
        self.onBody = onBody
    }

    func streamDidBecomeReady(_ stream: StreamConnection) {
        self.stream = stream
        var text = "\(request.method) \(request.target) HTTP/1.1\r\nHost: \(hostHeader)\r\nConnection: close\r\n"
        for h in request.headers where !h.name.caseInsensitiveEquals("content-length") && !h.name.caseInsensitiveEquals("host") {
            text += "\(h.name): \(h.value)\r\n"
        }
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) {
            text += "Content-Length: \(request.body.count)\r\n"
        }
        text += "\r\n"
        stream.write(Array(text.utf8) + request.body)
    }

    func stream(_ stream: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
        if head == nil {
            guard let end = buffer.firstRange(of: [13, 10, 13, 10]) else { return }
            let text = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
            buffer.removeSubrange(..<end.upperBound)
            var lines = text.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return fail(IOError.connectionClosed) }
            var headers = HTTPHeaders()
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingSpaces)
            }
            head = ResponseHead(status: status, headers: headers)
            chunked = headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false
            remaining = chunked ? nil : headers["content-length"].flatMap { Int($0) }
            if request.method == "HEAD" || status == 204 || status == 304 { remaining = 0 }
        }
        drainBody()
    }

    private func drainBody() {
        if chunked {
            while !done {
                if chunkLeft == 0 {
                    guard let lineEnd = buffer.firstRange(of: [13, 10]) else { return }
                    let sizeText = String(decoding: buffer[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
                    buffer.removeSubrange(..<lineEnd.upperBound)
                    guard let size = Int(sizeText.trimmingSpaces, radix: 16) else { return fail(IOError.connectionClosed) }
                    if size == 0 { return finish() }
                    chunkLeft = size + 2
                }
                guard !buffer.isEmpty else { return }
                let take = min(chunkLeft, buffer.count)
                let dataPart = min(take, max(0, chunkLeft - 2))
                if dataPart > 0 { onBody(Array(buffer[..<dataPart])) }
                buffer.removeSubrange(..<take)
                chunkLeft -= take
            }
        } else if let left = remaining {
            let take = min(left, buffer.count)
            if take > 0 { onBody(Array(buffer[..<take])); buffer.removeSubrange(..<take) }
            remaining = left - take
            if remaining == 0 { finish() }
        } else if !buffer.isEmpty {
            onBody(buffer)
            buffer.removeAll()
        }
    }

    func streamDidClose(_ stream: StreamConnection, error: IOError?) {
        if let error, head == nil { return fail(error) }
        if head == nil { return fail(IOError.connectionClosed) }
        finish()
    }

    func cancel() { stream?.close() }

    private func finish() {
        guard !done else { return }
        done = true
        if let head { continuation?.resume(returning: head) }
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
