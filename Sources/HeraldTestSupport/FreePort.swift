#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// TCP ports on 127.0.0.1 for listeners a test must name before they start: a simulator whose port the
/// server's settings carry, a child `herald serve` given `--port`, a webhook receiver.
///
/// Why not "bind port 0, read it, close": that port comes from the kernel's ephemeral range, which every
/// other listener started with port 0 and every outgoing connection draws from too, so in a busy suite it
/// can be handed to someone else before the test binds it again (CI failed once on exactly that,
/// `bind 127.0.0.1:39095 failed: Address already in use`). These ports come from below the ephemeral range
/// (Linux: 32768-60999, macOS: 49152-65535), which the kernel never assigns on its own, in turn from a
/// process-wide counter starting at a random point, and each is checked free by binding it once.
public enum FreePort {
    private static let range = 20_000..<32_768
    private static let cursor = Mutex(Int.random(in: range))

    /// A port no other caller in this process has been given, free when it was checked.
    public static func next() -> Int {
        for _ in range {
            let candidate = cursor.withLock { value in
                let port = value
                value = value + 1 < range.upperBound ? value + 1 : range.lowerBound
                return port
            }
            if canBind(candidate) { return candidate }
        }
        preconditionFailure("no free TCP port on 127.0.0.1 in \(range)")
    }

    private static func canBind(_ port: Int) -> Bool {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
