import Synchronization

/// Why a streamed request body stopped before its end.
public enum HTTPBodyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The body passed the route's limit.
    case tooLarge(limit: Int)
    /// The body's framing was broken (a bad chunk); the message says how.
    case malformed(String)
    /// The client went silent for longer than the body timeout.
    case timedOut
    /// The client closed the connection before the body ended.
    case connectionClosed

    public var description: String {
        switch self {
        case let .tooLarge(limit): "the request body is larger than the limit of \(limit) bytes"
        case let .malformed(why): why
        case .timedOut: "the client sent nothing for too long while sending the request body"
        case .connectionClosed: "the client closed the connection before the request body ended"
        }
    }
}

/// A request body that arrives while the handler runs (`HTTPBodyPolicy.stream`). The server feeds it from
/// its event loop and stops reading the socket while more than `highWater` bytes wait here, so a slow
/// consumer holds back the client instead of filling memory.
public final class HTTPBodyStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    private struct State {
        var pieces: [[UInt8]] = []
        var head = 0
        var buffered = 0
        var ended = false
        var error: HTTPBodyError?
        var waiter: CheckedContinuation<[UInt8]?, any Error>?
        var producerPaused = false
    }

    /// Past this many buffered bytes the producer pauses.
    public static let highWater = 256 * 1024

    /// What a piece holds in memory: a body of one-byte chunks is many small arrays, each with a header.
    private static func cost(_ piece: [UInt8]) -> Int { piece.count + 64 }
    private let state = Mutex(State())
    /// Called (off the loop) once the consumer has taken what made the producer pause.
    private let onDemand: @Sendable () -> Void

    init(onDemand: @escaping @Sendable () -> Void) {
        self.onDemand = onDemand
    }

    /// A stream that already holds the whole body: for handlers called in-process and for tests.
    public convenience init(_ bytes: [UInt8]) {
        self.init(onDemand: {})
        if !bytes.isEmpty { _ = feed(bytes) }
        finish()
    }

    // MARK: producer (the connection)

    /// Adds a piece; returns false when the producer should pause until `onDemand`.
    func feed(_ piece: [UInt8]) -> Bool {
        let waiter: CheckedContinuation<[UInt8]?, any Error>?
        let keepGoing: Bool
        (waiter, keepGoing) = state.withLock { s in
            if let w = s.waiter {
                s.waiter = nil
                return (w, true)
            }
            s.pieces.append(piece)
            s.buffered += Self.cost(piece)
            s.producerPaused = s.buffered > Self.highWater
            return (nil, !s.producerPaused)
        }
        waiter?.resume(returning: piece)
        return keepGoing
    }

    func finish() {
        let waiter = state.withLock { s -> CheckedContinuation<[UInt8]?, any Error>? in
            s.ended = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }

    func fail(_ error: HTTPBodyError) {
        let waiter = state.withLock { s -> CheckedContinuation<[UInt8]?, any Error>? in
            guard !s.ended, s.error == nil else { return nil }
            s.error = error
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(throwing: error)
    }

    // MARK: consumer (the handler)

    /// The next piece of the body, nil at its end; throws `HTTPBodyError` when it broke off.
    public func next() async throws -> [UInt8]? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
            enum Outcome { case piece([UInt8], resume: Bool), end, failed(HTTPBodyError), wait }
            let outcome = state.withLock { s -> Outcome in
                if s.head < s.pieces.count {
                    let piece = s.pieces[s.head]
                    s.head += 1
                    s.buffered -= Self.cost(piece)
                    if s.head == s.pieces.count { s.pieces.removeAll(keepingCapacity: true); s.head = 0 }
                    let resume = s.producerPaused && s.buffered <= Self.highWater / 2
                    if resume { s.producerPaused = false }
                    return .piece(piece, resume: resume)
                }
                if let e = s.error { return .failed(e) }
                if s.ended { return .end }
                // Nothing buffered, so the producer is not paused: the next piece comes by itself.
                precondition(s.waiter == nil, "an HTTPBodyStream has one consumer")
                s.waiter = continuation
                return .wait
            }
            switch outcome {
            case let .piece(piece, resume):
                if resume { onDemand() }
                continuation.resume(returning: piece)
            case .end: continuation.resume(returning: nil)
            case let .failed(e): continuation.resume(throwing: e)
            case .wait: break
            }
        }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: HTTPBodyStream
        public mutating func next() async throws -> [UInt8]? { try await stream.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }
}
