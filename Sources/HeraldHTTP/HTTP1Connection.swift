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
        let startedAt = MonotonicTime.now
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
    /// Reading stops while a streamed body's consumer is behind...
    private var bodyPaused = false
    /// ...and while pipelined requests or unread responses pile up.
    private var backlogPaused = false
    /// `process` is running; a call from inside it asks for one more pass instead of nesting.
    private var processing = false
    private var processAgain = false
    private var streamingTask: Task<Void, Never>?
    /// A streamed response's producer waiting for the client to take what is queued.
    private var drainWaiter: CheckedContinuation<Void, Never>?

    // Deadlines, in MonotonicTime nanoseconds.
    /// Start of the current phase: the first byte of a request, or the end of the last response.
    private var phaseStartedAt: UInt64
    private var requestStarted = false
    private var lastInputAt: UInt64
    private var outputQueuedAt: UInt64
    private var timer: TimerID?
    /// The shortest timeout: an armed timer fires no later than this after it was armed.
    private let timerPeriod: UInt64

    /// Pipelined bytes or unread response bytes past which the connection stops reading, and the queued
    /// response bytes past which a streamed response waits for the client.
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
        outputQueuedAt = now
    }

    // MARK: ConnectionDelegate

    func streamDidBecomeReady(_ stream: StreamConnection) {
        self.stream = stream
        phaseStartedAt = MonotonicTime.now
        scheduleDeadline()
    }

    func stream(_ stream: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        let now = MonotonicTime.now
        // The header timeout runs from a request's first byte; empty lines before it count as its start,
        // so a client cannot hold the connection by trickling line ends.
        if exchange == nil && !requestStarted {
            requestStarted = true
            phaseStartedAt = now
        }
        lastInputAt = now
        parser.append(bytes)
        process()
    }

    func streamDidDrain(_ stream: StreamConnection) {
        if let waiter = drainWaiter {
            drainWaiter = nil
            waiter.resume()
        }
        if backlogPaused { process() }
    }

    /// The client half-closed: answer what it already sent, then close. A streamed response (server-sent
    /// events) has no end to wait for, and its client is almost always gone rather than half-closed: it ends.
    func streamDidReachEndOfInput(_ stream: StreamConnection) {
        inputEnded = true
        if streamingTask != nil { return closeNow() }
        process()
    }

    func streamDidClose(_ stream: StreamConnection, error: IOError?) {
        self.stream = nil
        streamingTask?.cancel()
        drainWaiter?.resume()
        drainWaiter = nil
        exchange?.bodyStream?.fail(.connectionClosed)
        if let timer { loop.cancelTimer(timer) }
        timer = nil
    }

    // MARK: reading requests

    private func process() {
        if processing { processAgain = true; return }
        processing = true
        defer { processing = false }
        repeat {
            processAgain = false
            processOnce()
        } while processAgain && !closing
    }

    private func processOnce() {
        guard let stream, !closing else { return }
        while true {
            if let exchange, !exchange.reading { break }
            if exchange == nil && stream.pendingOutput > Self.backlogLimit { break }
            if bodyPaused { break }
            let event: HTTP1Parser.Event?
            do {
                event = try parser.next()
            } catch {
                return fail(status: error.status, code: error.code, message: error.message)
            }
            guard let event else {
                // Everything received is parsed. After the client's EOF nothing more can come.
                if inputEnded { return endOfInput() }
                break
            }
            switch event {
            case let .head(head): begin(head)
            case let .body(piece): receive(piece)
            case .end: endOfBody()
            }
            if closing { return }
        }
        updateBacklogPause()
        scheduleDeadline()
    }

    /// The client sent EOF and every byte it sent has been parsed.
    private func endOfInput() {
        guard let exchange else { return closeNow() }   // between requests: nothing more can come
        guard exchange.reading else { return }         // its answer is on the way; the close follows it
        exchange.reading = false
        guard let bodyStream = exchange.bodyStream else { return closeNow() }
        // The handler is running: it hears that the body broke off and answers; then the connection closes.
        bodyStream.fail(.connectionClosed)
        closeAfterResponse = true
    }

    private func begin(_ head: HTTP1Parser.Head) {
        requestStarted = false
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
            if !bodyStream.feed(piece) {
                bodyPaused = true
                stream?.pauseReading()
            }
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

    /// The streamed body's consumer caught up: what the parser holds goes first, then the socket again.
    private func resumeBody() {
        guard bodyPaused else { return }
        bodyPaused = false
        lastInputAt = MonotonicTime.now
        process()
        if !bodyPaused && !backlogPaused { stream?.resumeReading() }
    }

    /// Stops reading while answered-but-unread responses or waiting pipelined requests pile up.
    private func updateBacklogPause() {
        guard let stream else { return }
        let backlog = parser.bufferedBytes > Self.backlogLimit || stream.pendingOutput > Self.backlogLimit
        if backlog && !backlogPaused {
            backlogPaused = true
            stream.pauseReading()
        } else if !backlog && backlogPaused {
            backlogPaused = false
            if !bodyPaused { stream.resumeReading() }
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
            exchange.bodyStream?.fail(.connectionClosed)
            closeAfterResponse = true
        }
        let head = exchange.head
        // RFC 9110 §6.4.1: these carry no body, and no length either.
        let bodiless = response.status == 204 || response.status == 304 || (100..<200).contains(response.status)
        let sendsBody = head.method != "HEAD" && !bodiless
        // Written as bytes into one buffer sized for the body too: built as a String by interpolation (16
        // appends for a registration's answer), the head took ~7,000 instructions.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(192 + response.headers.fields.count * 48 + (sendsBody ? response.body.count : 0))
        bytes += "HTTP/1.1 ".utf8
        bytes += String(response.status).utf8
        bytes.append(UInt8(ascii: " "))
        bytes += HTTPStatus.reason(response.status).utf8
        bytes += "\r\n".utf8
        func field(_ name: String, _ value: String) {
            bytes += name.utf8
            bytes += ": ".utf8
            bytes += value.utf8
            bytes += "\r\n".utf8
        }
        for h in response.headers where !h.name.caseInsensitiveEquals("content-length") && !h.name.caseInsensitiveEquals("connection")
            && !h.name.caseInsensitiveEquals("transfer-encoding") {
            field(h.name, h.value)
        }
        if response.stream != nil && sendsBody {
            field("transfer-encoding", "chunked")
        } else if !bodiless {
            field("content-length", String(response.body.count))
        }
        if closeAfterResponse {
            field("connection", "close")
        } else if head.version == "HTTP/1.0" {
            field("connection", "keep-alive")
        }
        bytes += "\r\n".utf8
        if let body = response.stream, sendsBody {
            if !response.body.isEmpty { bytes += Self.chunk(response.body) }
            send(bytes)
            streamingTask = Task { [loop] in
                for await piece in body where !piece.isEmpty {
                    let framed = Self.chunk(piece)
                    // Waits while the client is behind: a fast producer must not queue without bound.
                    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                        loop.execute { self.sendWhenDrained(framed, waiter) }
                    }
                    if Task.isCancelled { break }
                }
                loop.execute { self.finishStreaming() }
            }
            scheduleDeadline()
            return
        }
        if sendsBody { bytes += response.body }
        send(bytes)
        finishResponse()
    }

    /// Writes a streamed response's piece, then lets its producer go on at once, or once the client has
    /// taken enough of what is queued.
    private func sendWhenDrained(_ piece: [UInt8], _ waiter: CheckedContinuation<Void, Never>) {
        guard let stream else { return waiter.resume() }
        send(piece)
        if stream.pendingOutput > Self.backlogLimit {
            drainWaiter = waiter
        } else {
            waiter.resume()
        }
    }

    /// Writes, starting the write timeout's clock when nothing was waiting: the timeout measures how long
    /// queued output goes untaken, not how long the connection has been writing.
    private func send(_ bytes: [UInt8]) {
        guard let stream else { return }
        if stream.pendingOutput == 0 { outputQueuedAt = MonotonicTime.now }
        stream.write(bytes)
    }

    private func finishStreaming() {
        streamingTask = nil
        guard exchange != nil, !closing else { return }
        send(Array("0\r\n\r\n".utf8))
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
        stream?.finishOutputAndClose(drainTimeout: limits.writeTimeout)
    }

    // MARK: deadlines

    private enum Deadline {
        /// Queued output has gone untaken: drop the connection.
        case write
        /// The request body stopped arriving, or arrives too slowly: 408.
        case body
        /// The request head did not complete in time: 408.
        case head
        /// A keep-alive connection without a request: close quietly.
        case idle
        /// Nothing is due; look again (a streamed response can queue output at any time).
        case recheck
    }

    /// The least average rate a request body must keep up once `bodyTimeout` has passed: a client sending
    /// a byte just before each silence would reach the timeout would otherwise hold its connection forever.
    static let minimumBodyBytesPerSecond: UInt64 = 1024

    /// The nearest deadline of the connection's phase.
    private func nearestDeadline() -> (at: UInt64, kind: Deadline)? {
        guard let stream, !closing else { return nil }
        var nearest: (at: UInt64, kind: Deadline)?
        func consider(_ at: UInt64, _ kind: Deadline) {
            if nearest.map({ at < $0.at }) ?? true { nearest = (at, kind) }
        }
        if stream.pendingOutput > 0 {
            consider(max(outputQueuedAt, stream.lastWriteProgress) &+ limits.writeTimeout.nanosecondsValue, .write)
        }
        if streamingTask != nil {
            consider(MonotonicTime.now &+ timerPeriod, .recheck)
        }
        if let exchange {
            if exchange.reading && !bodyPaused {
                consider(lastInputAt &+ limits.bodyTimeout.nanosecondsValue, .body)
                let allowance = UInt64(exchange.received) * 1_000_000_000 / Self.minimumBodyBytesPerSecond
                consider(exchange.startedAt &+ limits.bodyTimeout.nanosecondsValue &+ allowance, .body)
            }
        } else if !requestStarted && parser.isBetweenRequests {
            consider(phaseStartedAt &+ limits.idleTimeout.nanosecondsValue, .idle)
        } else if !backlogPaused {
            // While paused for backlog the rest of the head may simply not have been read yet.
            consider(phaseStartedAt &+ limits.headerTimeout.nanosecondsValue, .head)
        }
        return nearest
    }

    private func deadlinePassed(_ kind: Deadline) {
        switch kind {
        case .write:
            closing = true
            stream?.closeAbruptly()
        case .body:
            fail(status: 408, code: "request_timeout",
                 message: "The request body arrived too slowly; send it without pauses longer than \(limits.bodyTimeout) and at \(Self.minimumBodyBytesPerSecond) bytes/s or more.")
        case .head:
            fail(status: 408, code: "request_timeout", message: "The request head did not arrive within \(limits.headerTimeout).")
        case .idle:
            closeNow()
        case .recheck:
            scheduleDeadline()
        }
    }

    /// Keeps one timer armed, set no later than the shortest timeout from when it was armed. Every deadline
    /// starts as "now plus a timeout", so an armed timer always fires before a deadline that appeared after
    /// it; and nothing is cancelled or re-armed per request, which would leave a dead entry in the loop's
    /// timer heap for each.
    private func scheduleDeadline() {
        guard timer == nil, let (at, _) = nearestDeadline() else { return }
        let now = MonotonicTime.now
        let fireAt = min(at, now &+ timerPeriod)
        timer = loop.schedule(after: .nanoseconds(Int64(fireAt > now ? fireAt - now : 0))) { [weak self] in self?.deadlineTimerFired() }
    }

    private func deadlineTimerFired() {
        timer = nil
        guard let (at, kind) = nearestDeadline() else { return }
        if at <= MonotonicTime.now { deadlinePassed(kind) } else { scheduleDeadline() }
    }

    // MARK: helpers

    /// The API's error shape, written here because this module sits below the ones that render JSON.
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
