import Foundation
import Synchronization
import HeraldHTTP
import HeraldIO

/// Up to `size` HTTP/2 connections to one APNs endpoint with one credential (so one team per
/// connection, as APNs requires). Connections open on demand, are replaced when they close, and each
/// request goes to the least-loaded usable one. Every (re)connect resolves DNS afresh.
final class APNSConnectionPool: Sendable {
    private let template: HTTP2ClientConnection.Configuration
    private let size: Int
    private let observer: APNSClientObserver
    private let group: EventLoopGroup
    /// A request given back unprocessed is sent again with this long to wait for its answer (see `resend`).
    private let requestTimeout: Duration
    private let state = Mutex<State>(State())

    private struct State {
        var ready: [HTTP2ClientConnection] = []
        var connecting = 0
        var waiters: [CheckedContinuation<HTTP2ClientConnection, Error>] = []
        var lastError: Error?
        /// After a failed connect, callers get that error at once until this time instead of dialling again:
        /// a wrong host, port or CA must not turn a batch into a storm of connection attempts.
        var failingUntil: UInt64 = 0
        var consecutiveFailures = 0
        var closed = false
    }

    init(template: HTTP2ClientConnection.Configuration, size: Int, observer: APNSClientObserver, group: EventLoopGroup,
         requestTimeout: Duration) {
        self.template = template
        self.requestTimeout = requestTimeout
        self.size = max(1, size)
        self.observer = observer
        self.group = group
    }

    /// The least-loaded usable connection; opens connections up to `size` as needed.
    func connection() async throws -> HTTP2ClientConnection {
        enum Pick { case use(HTTP2ClientConnection), wait, closed, failing(Error) }
        let (pick, toOpen): (Pick, Int) = state.withLock { s in
            if s.closed { return (.closed, 0) }
            s.ready.removeAll { !$0.isUsable }
            let best = s.ready.min { $0.load < $1.load }
            if best == nil, s.connecting == 0, let error = s.lastError, MonotonicTime.now < s.failingUntil {
                return (.failing(error), 0)
            }
            let missing = size - s.ready.count - s.connecting
            // Grow when there is no connection, or the best one is already busy.
            let open = missing > 0 && (best == nil || best!.load > 0) ? (best == nil ? missing : 1) : 0
            s.connecting += open
            if let best { return (.use(best), open) }
            return (.wait, open)
        }
        for _ in 0..<toOpen { openOne() }
        switch pick {
        case let .use(c): return c
        case .closed: throw APNSClientError.shutdown
        case let .failing(error): throw error
        case .wait:
            return try await withCheckedThrowingContinuation { cont in
                let immediate: Result<HTTP2ClientConnection, Error>? = state.withLock { s in
                    if s.closed { return .failure(APNSClientError.shutdown) }
                    if let c = s.ready.first(where: \.isUsable) { return .success(c) }
                    if s.connecting == 0 {
                        return .failure(s.lastError ?? HTTP2ClientError.connectFailed("no connection could be opened"))
                    }
                    s.waiters.append(cont)
                    return nil
                }
                if let immediate { cont.resume(with: immediate) }
            }
        }
    }

    private func openOne() {
        let loop = group.next()
        Task {
            do {
                let conn = try await HTTP2ClientConnection.connect(template, loop: loop)
                observer.connectionOpened()
                conn.onClose = { [weak self] closed in self?.closed(closed) }
                conn.onRequeue = { [weak self] requests, handlers in
                    self?.resend(requests, handlers)
                }
                let (waiters, shutDown) = state.withLock { s -> ([CheckedContinuation<HTTP2ClientConnection, Error>], Bool) in
                    s.connecting -= 1
                    if s.closed { return ([], true) }
                    s.ready.append(conn)
                    s.lastError = nil
                    s.consecutiveFailures = 0
                    let w = s.waiters
                    s.waiters = []
                    return (w, false)
                }
                if shutDown { conn.close() }
                waiters.forEach { $0.resume(returning: conn) }
            } catch {
                observer.connectionFailed()
                let waiters = state.withLock { s -> [CheckedContinuation<HTTP2ClientConnection, Error>] in
                    s.connecting -= 1
                    s.lastError = error
                    s.consecutiveFailures += 1
                    // 250 ms doubling to 8 s between dial attempts while the endpoint keeps failing.
                    let backoff = UInt64(250_000_000) << UInt64(min(5, s.consecutiveFailures - 1))
                    s.failingUntil = MonotonicTime.now + backoff
                    guard s.connecting == 0 else { return [] }
                    let w = s.waiters
                    s.waiters = []
                    return w
                }
                waiters.forEach { $0.resume(throwing: error) }
            }
        }
    }

    private func closed(_ conn: HTTP2ClientConnection) {
        observer.connectionClosed()
        state.withLock { s in s.ready.removeAll { $0 === conn } }
    }

    /// Requests a closing connection gave back unprocessed (GOAWAY, refused): send them elsewhere
    /// with their original completions. This is not a new attempt: APNs never saw them. Their deadline starts
    /// again: it bounds the wait for an answer from a server that has the request, and a request that a
    /// server ending connections (GOAWAY after every N streams) bounced from one connection to the next had
    /// spent it queueing. Timing out once it was finally sent would then retry a request the server may
    /// have taken, and a device would get the notification twice.
    private func resend(_ requests: [HTTP2ClientRequest], _ handlers: [any HTTP2ResponseHandler]) {
        Task {
            for i in requests.indices {
                do {
                    let c = try await connection()
                    c.send(requests[i], deadline: MonotonicTime.now + requestTimeout.nanosecondsValue, handler: handlers[i])
                } catch {
                    handlers[i].requestCompleted(.failure(.connectFailed("\(error)")))
                }
            }
        }
    }

    func shutdown() {
        let (conns, waiters) = state.withLock { s in
            s.closed = true
            let r = (s.ready, s.waiters)
            s.ready = []
            s.waiters = []
            return r
        }
        conns.forEach { $0.close() }
        waiters.forEach { $0.resume(throwing: APNSClientError.shutdown) }
    }
}
