import Synchronization

/// Connections this process dials to itself over loopback (the built-in simulator that `herald serve` sends
/// to, a test's server): the listener that accepts one serves it on the loop that carries the dialling side,
/// so both ends run on one thread and a request and its answer wake no other loop. Left to round-robin, the
/// two ends of each connection landed on the same loop or on different ones by chance, per process; with
/// them apart, a fan-out to the built-in simulator left a seventh of the machine idle, waiting on those
/// wake-ups, and ran 10-20% slower (docs/performance.md, "Round 12").
///
/// Keyed by the dialling side's local port: only dials to 127.0.0.0/8 are recorded (bound to a port of
/// 127.0.0.1 before they connect, so an accept cannot come first), and an entry lives until the accept takes
/// it or the dialled connection closes (a dial to another process's listener is never accepted here). A
/// wrong or missing match costs only that loop choice, never a connection.
enum LoopbackPeers {
    private static let dialled = Mutex<[Int: EventLoop]>([:])

    /// A connection on `loop` to a loopback address, whose local port is `port`.
    static func record(port: Int, loop: EventLoop) {
        dialled.withLock { $0[port] = loop }
    }

    /// The dialled connection from `port` closed: if no listener of this process took it, nothing will.
    static func forget(port: Int) {
        dialled.withLock { _ = $0.removeValue(forKey: port) }
    }

    /// Whether a dial from `port` waits to be accepted (tests).
    static func isRecorded(port: Int) -> Bool { dialled.withLock { $0[port] != nil } }

    /// The loop of this process's own connection from `remote`, when it is one of `group`'s (a connection
    /// is served on a loop of its listener's group, which shuts down with it).
    static func take(_ remote: SocketAddress, in group: EventLoopGroup) -> EventLoop? {
        guard remote.isIPv4Loopback else { return nil }
        guard let loop = dialled.withLock({ $0.removeValue(forKey: remote.port) }) else { return nil }
        return group.loops.contains { $0 === loop } ? loop : nil
    }
}
