import Foundation
internal import CHeraldShims

/// Thin helpers over BSD sockets; the descriptors they return are non-blocking and close-on-exec.
enum Socket {
    static func makeStream(family: Int32) throws -> Int32 {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw IOError.system("socket", errno) }
        return fd
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32 = 1) {
        var v = value
        _ = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Starts a non-blocking connect; returns true when already connected.
    static func connect(_ fd: Int32, to address: SocketAddress) throws -> Bool {
        let rc = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        if rc == 0 { return true }
        if errno == EINPROGRESS { return false }
        throw IOError.system("connect to \(address)", errno)
    }

    /// Binds a socket that will dial an IPv4 loopback address to a free port of 127.0.0.1, so its port is
    /// known before a listener can see the connection (`LoopbackPeers`). Nil when that failed: connect then
    /// picks the port as usual.
    static func bindIPv4LoopbackSource(_ fd: Int32) -> Int? {
        var source = sockaddr_in()
        source.sin_family = sa_family_t(AF_INET)
        source.sin_addr.s_addr = UInt32(INADDR_LOOPBACK).bigEndian
        let rc = withUnsafePointer(to: &source) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return rc == 0 ? localAddress(fd)?.port : nil
    }

    /// The pending error of a non-blocking connect (0 when it succeeded).
    static func pendingError(_ fd: Int32) -> Int32 {
        var err: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
        return err
    }

    static func listen(host: String, port: Int, backlog: Int32 = 1024) throws -> (fd: Int32, address: SocketAddress) {
        guard let address = try SocketAddress.resolve(host: host, port: port).first else {
            throw IOError.resolve(host: host, message: "no address")
        }
        let fd = try makeStream(family: address.family)
        setOption(fd, SOL_SOCKET, SO_REUSEADDR)
        let bound = address.withSockaddr { bind(fd, $0, $1) }
        guard bound == 0 else {
            let e = errno
            close(fd)
            throw IOError.system("bind \(address)", e)
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let e = errno
            close(fd)
            throw IOError.system("listen", e)
        }
        return (fd, localAddress(fd) ?? address)
    }

    static func localAddress(_ fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) { ptr in
            ptr.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return rc == 0 ? SocketAddress(storage: storage, length: len) : nil
    }

    /// Accepts one connection; nil when none is pending.
    static func accept(_ fd: Int32) -> (fd: Int32, address: SocketAddress)? {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let client = withUnsafeMutablePointer(to: &storage) { ptr in
            ptr.withMemoryRebound(to: sockaddr.self, capacity: 1) { herald_io_accept_nonblocking(fd, $0, &len) }
        }
        guard client >= 0 else { return nil }
        return (client, SocketAddress(storage: storage, length: len))
    }
}
