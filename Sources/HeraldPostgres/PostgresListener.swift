import Foundation
import Synchronization
import HeraldStore
internal import CPostgres
#if canImport(Glibc)
import Glibc
#endif

/// Listens on one NOTIFY channel with a connection of its own, on a thread of its own (libpq and `poll`
/// block), and calls `onNotify` for each notification not sent by `ignoring` (a node does not wake itself).
/// A lost connection is opened again every second, and `onNotify` is then called once, since notifications
/// sent meanwhile were missed; the nodes' slow poll covers the time in between.
final class PostgresListener: WorkWatch, @unchecked Sendable {
    private let conninfo: String
    private let channel: String
    private let ignoring: String
    private let onNotify: @Sendable () -> Void
    private let stopping = Atomic<Bool>(false)
    private let finished = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    /// How long one `poll` waits, so a stop is noticed within this time.
    private static let pollMilliseconds: Int32 = 250

    init(conninfo: String, channel: String, ignoring: String, onNotify: @escaping @Sendable () -> Void) {
        self.conninfo = conninfo
        self.channel = channel
        self.ignoring = ignoring
        self.onNotify = onNotify
        let thread = Thread { [self] in run() }
        thread.name = "herald.postgres.listen"
        thread.start()
    }

    func stop() async {
        stopping.store(true, ordering: .relaxed)
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = finished.withLock { f -> Bool in
                if !f.done { f.waiters.append(c) }
                return f.done
            }
            if done { c.resume() }
        }
    }

    private var isStopping: Bool { stopping.load(ordering: .relaxed) }

    private func run() {
        var missed = false
        while !isStopping {
            if let conn = listen() {
                if missed { onNotify() }
                missed = true
                serve(conn)
                PQfinish(conn)
            }
            // Not connected: try again in a second (in steps, to notice a stop).
            for _ in 0..<4 where !isStopping { usleep(250_000) }
        }
        let waiters = finished.withLock { f -> [CheckedContinuation<Void, Never>] in
            f.done = true
            defer { f.waiters = [] }
            return f.waiters
        }
        for w in waiters { w.resume() }
    }

    /// A connection listening on the channel, or nil when the server cannot be reached.
    private func listen() -> OpaquePointer? {
        guard let conn = PQconnectdb(conninfo) else { return nil }
        guard PQstatus(conn) == CONNECTION_OK else { PQfinish(conn); return nil }
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
        // The channel is a constant of this module (never input); LISTEN takes no parameters.
        let result = PQexec(conn, "LISTEN \(channel)")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { PQfinish(conn); return nil }
        return conn
    }

    /// Waits for notifications until the connection fails or the listener stops.
    private func serve(_ conn: OpaquePointer) {
        let socket = PQsocket(conn)
        guard socket >= 0 else { return }
        while !isStopping {
            var fds = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fds, 1, Self.pollMilliseconds)
            if ready < 0 && errno != EINTR { return }
            guard ready > 0 else { continue }
            guard PQconsumeInput(conn) == 1, PQstatus(conn) == CONNECTION_OK else { return }
            var heard = false
            while let notice = PQnotifies(conn) {
                let sender = notice.pointee.extra.map { String(cString: $0) } ?? ""
                if sender != ignoring { heard = true }
                PQfreemem(notice)
            }
            if heard { onNotify() }
        }
    }
}
