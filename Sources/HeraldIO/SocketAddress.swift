import Foundation
internal import CHeraldShims

/// An IPv4 or IPv6 socket address.
public struct SocketAddress: Sendable, CustomStringConvertible {
    var storage: sockaddr_storage
    var length: socklen_t

    /// Resolves `host` afresh (no cache: APNs asks for an uncached lookup per connection).
    /// Blocking: call it off the event loops and off the cooperative pool.
    public static func resolve(host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let first = result else {
            throw IOError.resolve(host: host, message: String(cString: gai_strerror(rc)))
        }
        defer { freeaddrinfo(first) }
        var out: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let ai = cursor {
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { dst in
                dst.copyMemory(from: UnsafeRawBufferPointer(start: ai.pointee.ai_addr, count: Int(ai.pointee.ai_addrlen)))
            }
            out.append(SocketAddress(storage: storage, length: ai.pointee.ai_addrlen))
            cursor = ai.pointee.ai_next
        }
        return out
    }

    init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    var family: Int32 { Int32(storage.ss_family) }

    public var port: Int {
        withUnsafeBytes(of: storage) { raw in
            if family == AF_INET6 {
                return Int(UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self)))
            }
            return Int(UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self)))
        }
    }

    public var host: String {
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var copy = storage
        _ = withUnsafePointer(to: &copy) { ptr in
            ptr.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST)
            }
        }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// 127.0.0.0/8: this host, reached without a network.
    var isIPv4Loopback: Bool {
        family == AF_INET && withUnsafeBytes(of: storage) { $0[4] == 127 }
    }

    public var description: String { family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var copy = storage
        return withUnsafePointer(to: &copy) { ptr in
            ptr.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
