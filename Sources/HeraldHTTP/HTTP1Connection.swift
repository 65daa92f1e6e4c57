import Foundation
import HeraldIO

/// One keep-alive HTTP/1.1 connection. Requests are answered in order: the next pipelined request is
/// parsed only after the current response is written. Confined to its loop; the handler runs on the
/// cooperative pool and its response comes back through `loop.execute`.
final class HTTP1Connection: ConnectionDelegate, @unchecked Sendable {
    private let loop: EventLoop
    private let handler: HTTPHandler
    private var parser: HTTP1Parser
    private var stream: StreamConnection?
    private var busy = false
    private var closeAfterResponse = false
    private var streamingTask: Task<Void, Never>?

    init(loop: EventLoop, maxBodyBytes: Int, handler: @escaping HTTPHandler) {
        self.loop = loop
        self.handler = handler
        self.parser = HTTP1Parser(maxBodyBytes: maxBodyBytes)
    }

    func streamDidBecomeReady(_ stream: StreamConnection) { self.stream = stream }

    func stream(_ stream: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        parser.append(bytes)
        processNext()
    }

    func streamDidClose(_ stream: StreamConnection, error: IOError?) {
        self.stream = nil
        streamingTask?.cancel()
    }

    private func processNext() {
        guard !busy, let stream else { return }
        let parsed: (HTTP1Parser.Head, [UInt8])?
        do {
            parsed = try parser.next()
        } catch {
            closeAfterResponse = true
            let (status, code, message): (Int, String, String) = switch error {
            case .headersTooLarge: (431, "headers_too_large", "request headers are larger than 64 KiB")
            case let .bodyTooLarge(limit): (413, "payload_too_large", "request body is larger than the limit of \(limit) bytes")
            case let .malformed(why): (400, "bad_request", why)
            }
            write(HTTPResponse(status: status, json: #"{"error":{"code":"\#(code)","message":"\#(message)","field":null}}"#), head: nil)
            return
        }
        guard let (head, body) = parsed else { return }
        busy = true
        let connectionHeader = head.headers["connection"]?.lowercased()
        closeAfterResponse = connectionHeader == "close" || (head.version == "HTTP/1.0" && connectionHeader != "keep-alive")
        let request = HTTPRequest(method: head.method, target: head.target, headers: head.headers, body: body,
                                  remoteAddress: stream.remoteAddress)
        let handler = self.handler
        Task {
            let response = await handler(request)
            self.loop.execute { self.write(response, head: head) }
        }
    }

    private func write(_ response: HTTPResponse, head: HTTP1Parser.Head?) {
        guard let stream else { return }
        var text = "HTTP/1.1 \(response.status) \(HTTPStatus.reason(response.status))\r\n"
        for h in response.headers where !h.name.caseInsensitiveEquals("content-length") && !h.name.caseInsensitiveEquals("connection") {
            text += "\(h.name): \(h.value)\r\n"
        }
        if response.stream != nil {
            text += "transfer-encoding: chunked\r\n"
        } else {
            text += "content-length: \(response.body.count)\r\n"
        }
        text += closeAfterResponse ? "connection: close\r\n\r\n" : "\r\n"
        var bytes = Array(text.utf8)
        if let body = response.stream {
            if !response.body.isEmpty { bytes += Self.chunk(response.body) }
            stream.write(bytes)
            streamingTask = Task { [loop] in
                for await piece in body where !piece.isEmpty {
                    let framed = Self.chunk(piece)
                    loop.execute { self.stream?.write(framed) }
                }
                loop.execute { self.finishStreaming() }
            }
            return
        }
        if head?.method != "HEAD" { bytes += response.body }
        stream.write(bytes)
        finishResponse()
    }

    private func finishStreaming() {
        stream?.write(Array("0\r\n\r\n".utf8))
        streamingTask = nil
        finishResponse()
    }

    private func finishResponse() {
        busy = false
        if closeAfterResponse {
            stream?.close()
        } else {
            processNext()
        }
    }

    private static func chunk(_ piece: [UInt8]) -> [UInt8] {
        Array(String(piece.count, radix: 16).utf8) + [13, 10] + piece + [13, 10]
    }
}

enum HTTPStatus {
    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Payload Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
