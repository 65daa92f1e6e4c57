import Foundation

/// A listening socket on one loop. Accepted connections go to `onAccept` on that loop with the loop
/// they should live on (round-robin over the group), so a server spreads connections over its loops; a
/// connection this process dialled to itself lives on the loop of its dialling side (`LoopbackPeers`).
public final class TCPListener: EventHandler, @unchecked Sendable {
    public let address: SocketAddress
    public var port: Int { address.port }
    private let fd: Int32
    private let loop: EventLoop
    private let group: EventLoopGroup
    private let onAccept: (Int32, SocketAddress, EventLoop) -> Void
    private var open = true

    private init(fd: Int32, address: SocketAddress, loop: EventLoop, group: EventLoopGroup,
                 onAccept: @escaping (Int32, SocketAddress, EventLoop) -> Void) {
        self.fd = fd
        self.address = address
        self.loop = loop
        self.group = group
        self.onAccept = onAccept
    }

    /// Binds and listens on `host:port` (port 0 picks a free one; read `port` afterwards).
    /// `onAccept` runs on the listener's loop; hand the descriptor to the given loop with `execute` (the loop
    /// of the dialling side for a connection this process made to itself, `LoopbackPeers`; else the group's next).
    public static func start(host: String, port: Int, group: EventLoopGroup,
                             onAccept: @escaping @Sendable (Int32, SocketAddress, EventLoop) -> Void) async throws -> TCPListener {
        let (fd, address) = try Socket.listen(host: host, port: port)
        let loop = group.next()
        let listener = TCPListener(fd: fd, address: address, loop: loop, group: group, onAccept: onAccept)
        try await loop.submit { try loop.register(fd: fd, handler: listener) }
        return listener
    }

    public func handleEvent(readable: Bool, writable: Bool, hangup: Bool) {
        while open, let (client, address) = Socket.accept(fd) {
            onAccept(client, address, LoopbackPeers.take(address, in: group) ?? group.next())
        }
        // Out of file descriptors: the pending connection stays queued and the level-triggered socket would
        // wake the loop again at once, spinning it. Stop watching for a moment instead.
        let failure = errno
        if open && (failure == EMFILE || failure == ENFILE || failure == ENOBUFS || failure == ENOMEM) {
            loop.modify(fd: fd, readable: false, writable: false)
            loop.schedule(after: .milliseconds(100)) { [weak self] in
                guard let self, self.open else { return }
                self.loop.modify(fd: self.fd, readable: true, writable: false)
            }
        }
    }

    /// Stops accepting. Existing connections are not touched.
    public func stop() async {
        try? await loop.submit { [self] in
            guard open else { return }
            open = false
            loop.unregister(fd: fd)
            close(fd)
        }
    }
}
