import Foundation
import HeraldIO

/// One keep-alive HTTP/1.1 connection on the server side. Confined to its loop; handlers run on the
/// cooperative pool and their responses come back through `loop.execute`.
///
/// Requests are answered in order: the next pipelined request is parsed only once the current response is
/// written. A request's body is read only after its head has been admitted by the body policy, and never past
/// the policy's limit. Every phase has a deadline (`HTTP1Limits`), and one timer per connection watches the
/// nearest one.
final class HTTP1Connection: ConnectionDelegate, @unchecked Sendable {
    /// The request being read or answered.
    private final class Exchange {
        let head: HTTP1Parser.Head
        let limit: Int
        let bodyStream: HTTPBodyStream?
        var body: [UInt8] = []
        var received = 0
        /// The parser still owes this request body bytes or its end. False once it ended, or once the rest
        /// of it will never be read (rejected, too large, broken): the connection then closes after answering.
        var reading: Bool
        /// The response is being written.
        var responding = false

        init(head: HTTP1Parser.Head, limit: Int, bodyStream: HTTPBodyStream?, reading: Bool = true) {
            self.head = head
            self.limit = limit
            self.bodyStream = bodyStream
            self.reading = reading
        }
    }

    private let loop: EventLoop
    private let handler: HTTPHandler
    private let bodyPolicy: HTTPBodyPolicyProvider
    private let limits: HTTP1Limits
    private var parser: HTTP1Parser
    private var stream: StreamConnection?
    private var exchange: Exchange?
    private var closeAfterResponse = false
    private var closing = false
    private var inputEnded = false
    /// Reading stopped: a streamed body's consumer is behind, or pipelined requests and unread responses piled up.
    private var inputPaused = false
    /// `process` is running: a response written from inside it must not start another pass.
    private var processing = false
    private var streamingTask: Task<Void, Never>?

    // Deadlines, in MonotonicTime nanoseconds.
    private var phaseStartedAt: UInt64
    private var lastInputAt: UInt64
    private var lastOutputProgressAt: UInt64
    private var timer: TimerID?
    /// The shortest timeout: an armed timer fires no later than this after it was armed.
    private let timerPeriod: UInt64

    /// Pipelined bytes or unread response bytes past which the connection stops reading.
    private static let backlogLimit = 256 * 1024

    init(loop: EventLoop, limits: HTTP1Limits, bodyPolicy: @escaping HTTPBodyPolicyProvider, handler: @escaping HTTPHandler) {
        self.loop = loop
        self.handler = handler
        self.bodyPolicy = bodyPolicy
        self.limits = limits
        self.parser = HTTP1Parser(limits: limits)
        timerPeriod = [limits.headerTimeout, limits.bodyTimeout, limits.idleTimeout, limits.writeTimeout].min()!.nanosecondsValue
        let now = MonotonicTime.now
        phaseStartedAt = now
        lastInputAt = now
        lastOutputProgressAt = now
    }

    // MARK: ConnectionDelegate

    func streamDidBecomeReady(_ stream: StreamConnection) {
        self.stream = stream
        phaseStartedAt = MonotonicTime.now
        scheduleDeadline()
    }

    func stream(_ stream: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        let now = MonotonicTime.now
        if exchange == nil && parser.isBetweenRequests { phaseStartedAt = now }
        lastInputAt = now
        parser.append(bytes)
        process()
    }

    func streamDidDrain(_ stream: StreamConnection) {
        lastOutputProgressAt = MonotonicTime.now
        if inputPaused && exchange == nil { process() }
    }

    /// The client half-closed: answer what it already sent, then close. A streamed response (server-sent
    /// events) has no end to wait for, and its client is almost always gone rather than half-closed: it ends.
    func streamDidReachEndOfInput(_ stream: StreamConnection) {
        inputEnded = true
        if streamingTask != nil { return closeNow() }
        if let exchange, exchange.reading {
            // Everything received was parsed already: this body will never be complete.
            exchange.reading = false
            guard let bodyStream = exchange.bodyStream else { return closeNow() }
            bodyStream.fail(.connectionClosed)
            closeAfterResponse = true
            return
        }
        if exchange == nil { process() }
    }

    func streamDidClose(_ stream: StreamConnection, error: IOError?) {
        self.stream = nil
        streamingTask?.cancel()
        exchange?.bodyStream?.fail(.connectionClosed)
        if let timer { loop.cancelTimer(timer) }
        timer = nil
    }

    // MARK: reading requests

    private func process() {
        guard let stream, !closing, !processing else { return }
        processing = true
        defer { processing = false }
        while true {
            if let exchange, !exchange.reading { break }
            if exchange == nil && stream.pendingOutput > Self.backlogLimit { break }
            if inputPaused && exchange?.bodyStream != nil { break }
            let event: HTTP1Parser.Event?
            do {
                event = try parser.next()
            } catch {
                return fail(status: error.status, code: error.code, message: error.message)
            }
            guard let event else { break }
            switch event {
            case let .head(head): begin(head)
            case let .body(piece): receive(piece)
            case .end: endOfBody()
            }
            if closing { return }
        }
        // The client has half-closed: once every complete request it sent is answered, nothing more can come.
        if exchange == nil && inputEnded && stream.pendingOutput <= Self.backlogLimit { return closeNow() }
        updateInputPause()
        scheduleDeadline()
    }

    private func begin(_ head: HTTP1Parser.Head) {
        let requestHead = HTTPRequestHead(method: head.method, target: head.target, headers: head.headers,
                                          remoteAddress: stream?.remoteAddress ?? "", framing: head.framing)
        if !head.keepAlive { closeAfterResponse = true }
        let policy = bodyPolicy(requestHead)
        let limit: Int
        switch policy {
        case let .reject(response):
            // Without a body the parser's end of this request comes next and is skipped; with one, its bytes
            // were not read and cannot be told from the next request's, so the connection closes.
            exchange = Exchange(head: head, limit: 0, bodyStream: nil, reading: false)
            if head.framing.hasBody { closeAfterResponse = true }
            return respond(response)
        case let .collect(n), let .stream(n):
            limit = n
        }
        if let length = head.framing.announcedLength, length > limit {
            exchange = Exchange(head: head, limit: limit, bodyStream: nil, reading: false)
            closeAfterResponse = true
            return respond(Self.errorResponse(413, "body_too_large", "The request body is \(length) bytes; this route accepts at most \(limit)."))
        }
        if head.expectsContinue && head.framing.hasBody {
            send(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        if case .stream = policy {
            let loop = self.loop
            let bodyStream = HTTPBodyStream { [weak self] in
                guard let self else { return }
                loop.execute { self.resumeBody() }
            }
            exchange = Exchange(head: head, limit: limit, bodyStream: bodyStream)
            startHandler(HTTPRequest(method: head.method, target: head.target, headers: head.headers, bodyStream: bodyStream,
                                     remoteAddress: requestHead.remoteAddress))
        } else {
            exchange = Exchange(head: head, limit: limit, bodyStream: nil)
        }
    }

    private func receive(_ piece: [UInt8]) {
        guard let exchange else { return }
        exchange.received += piece.count
        if exchange.received > exchange.limit {
            exchange.reading = false
            closeAfterResponse = true
            if let bodyStream = exchange.bodyStream {
                bodyStream.fail(.tooLarge(limit: exchange.limit))
            } else {
                exchange.body = []
                respond(Self.errorResponse(413, "body_too_large", "The request body is larger than this route's limit of \(exchange.limit) bytes."))
            }
            return
        }
        if let bodyStream = exchange.bodyStream {
            if !bodyStream.feed(piece) { inputPaused = true; stream?.pauseReading() }
        } else if exchange.body.isEmpty {
            exchange.body = piece
        } else {
            exchange.body += piece
        }
    }

    private func endOfBody() {
        // No exchange: the end of a bodiless request that was already answered (rejected).
        guard let exchange, exchange.reading else { return }
        exchange.reading = false
        if let bodyStream = exchange.bodyStream {
            bodyStream.finish()
        } else {
            let head = exchange.head
            startHandler(HTTPRequest(method: head.method, target: head.target, headers: head.headers, body: exchange.body,
                                     remoteAddress: stream?.remoteAddress ?? ""))
            exchange.body = []
        }
    }

    private func resumeBody() {
        guard inputPaused, exchange?.bodyStream != nil else { return }
        inputPaused = false
        stream?.resumeReading()
        lastInputAt = MonotonicTime.now
        process()
    }

    /// Stops reading while answered-but-unread responses or waiting pipelined requests pile up.
    private func updateInputPause() {
        guard let stream, exchange?.bodyStream == nil || exchange?.reading == false else { return }
        let backlog = parser.bufferedBytes > Self.backlogLimit || stream.pendingOutput > Self.backlogLimit
        if backlog && !inputPaused {
            inputPaused = true
            stream.pauseReading()
        } else if !backlog && inputPaused {
            inputPaused = false
            stream.resumeReading()
        }
    }

    private func startHandler(_ request: HTTPRequest) {
        let handler = self.handler
        let loop = self.loop
        Task {
            let response = await handler(request)
            loop.execute { self.respond(response) }
        }
    }

    // MARK: writing responses

    private func respond(_ response: HTTPResponse) {
        guard stream != nil, let exchange, !exchange.responding else { return }
        exchange.responding = true
        if exchange.reading {
            // A streaming handler answered before the body ended: the rest is never read.
            exchange.reading = false
            closeAfterResponse = true
        }
        var text = "HTTP/1.1 \(response.status) \(HTTPStatus.reason(response.status))\r\n"
        for h in response.headers where !h.name.caseInsensitiveEquals("content-length") && !h.name.caseInsensitiveEquals("connection")
            && !h.name.caseInsensitiveEquals("transfer-encoding") {
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
            send(bytes)
            streamingTask = Task { [loop] in
                for await piece in body where !piece.isEmpty {
                    let framed = Self.chunk(piece)
                    loop.execute { self.send(framed) }
                }
                loop.execute { self.finishStreaming() }
            }
            scheduleDeadline()
            return
        }
        if exchange.head.method != "HEAD" { bytes += response.body }
        send(bytes)
        finishResponse()
    }

    /// Writes, starting the write timeout's clock when nothing was waiting: the timeout measures how long
    /// queued output goes untaken, not how long the connection has been writing.
    private func send(_ bytes: [UInt8]) {
        guard let stream else { return }
        if stream.pendingOutput == 0 { lastOutputProgressAt = MonotonicTime.now }
        stream.write(bytes)
    }

    private func finishStreaming() {
        send(Array("0\r\n\r\n".utf8))
        streamingTask = nil
        finishResponse()
    }

    private func finishResponse() {
        exchange = nil
        if closeAfterResponse { return closeNow() }
        phaseStartedAt = MonotonicTime.now
        process()
    }

    /// Answers a request that cannot be served (malformed, too large, too slow) and closes.
    private func fail(status: Int, code: String, message: String) {
        closeAfterResponse = true
        if let exchange {
            if exchange.responding { return closeNow() }
            exchange.reading = false
            if let bodyStream = exchange.bodyStream {
                // The handler is running; it sees the broken body and answers, then the connection closes.
                bodyStream.fail(status == 408 ? .timedOut : .malformed(message))
                return
            }
        } else {
            exchange = Exchange(head: HTTP1Parser.Head(method: "GET", target: "/", version: "HTTP/1.1", headers: [:], framing: .none,
                                                       keepAlive: false, expectsContinue: false),
                                limit: 0, bodyStream: nil, reading: false)
        }
        respond(Self.errorResponse(status, code, message))
    }

    private func closeNow() {
        guard !closing else { return }
        closing = true
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        stream?.finishOutputAndClose()
    }

    // MARK: deadlines

    /// The nearest deadline of the connection's phase, and what happens when it passes.
    private func deadline() -> (at: UInt64, action: () -> Void)? {
        guard let stream, !closing else { return nil }
        var nearest: (at: UInt64, action: () -> Void)?
        func consider(_ at: UInt64, _ action: @escaping () -> Void) {
            if nearest == nil || at < nearest!.at { nearest = (at, action) }
        }
        if stream.pendingOutput > 0 {
            consider(lastOutputProgressAt &+ limits.writeTimeout.nanosecondsValue) { [weak self] in
                self?.closing = true
                self?.stream?.closeAbruptly()
            }
        }
        if streamingTask != nil {
            // A streamed response can leave output waiting at any time: keep looking.
            consider(MonotonicTime.now &+ timerPeriod) { [weak self] in self?.scheduleDeadline() }
        }
        if let exchange {
            if exchange.reading && !inputPaused {
                consider(lastInputAt &+ limits.bodyTimeout.nanosecondsValue) { [weak self] in
                    self?.fail(status: 408, code: "request_timeout", message: "The request body stopped arriving; send it without pauses longer than \(self?.limits.bodyTimeout ?? .zero).")
                }
            }
        } else if parser.isBetweenRequests {
            consider(phaseStartedAt &+ limits.idleTimeout.nanosecondsValue) { [weak self] in self?.closeNow() }
        } else {
            consider(phaseStartedAt &+ limits.headerTimeout.nanosecondsValue) { [weak self] in
                self?.fail(status: 408, code: "request_timeout", message: "The request head did not arrive within \(self?.limits.headerTimeout ?? .zero).")
            }
        }
        return nearest
    }

    /// Keeps one timer armed, set no later than the shortest timeout from when it was armed. Every deadline
    /// starts as "now plus a timeout", so an armed timer always fires before a deadline that appeared after
    /// it; and nothing is cancelled or re-armed per request, which would leave a dead entry in the loop's
    /// timer heap for each.
    private func scheduleDeadline() {
        guard timer == nil, let (at, _) = deadline() else { return }
        let now = MonotonicTime.now
        let fireAt = min(at, now &+ timerPeriod)
        timer = loop.schedule(after: .nanoseconds(Int64(fireAt > now ? fireAt - now : 0))) { [weak self] in self?.deadlineTimerFired() }
    }

    private func deadlineTimerFired() {
        timer = nil
        guard let (at, action) = deadline() else { return }
        if at <= MonotonicTime.now { action() } else { scheduleDeadline() }
    }

    // MARK: helpers

    static func errorResponse(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, json: #"{"error":{"code":"\#(code)","message":\#(jsonString(message)),"field":null}}"#)
    }

    private static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func chunk(_ piece: [UInt8]) -> [UInt8] {
        Array(String(piece.count, radix: 16).utf8) + [13, 10] + piece + [13, 10]
    }
}
