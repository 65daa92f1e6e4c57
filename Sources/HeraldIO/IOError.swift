import Foundation

/// An error from the I/O layer. `system` carries the failing call and errno.
public enum IOError: Error, Sendable, Equatable, CustomStringConvertible {
    case system(String, Int32)
    case resolve(host: String, message: String)
    case connectionClosed
    case timeout(String)
    case tls(String)
    case proxy(String)

    public var description: String {
        switch self {
        case let .system(call, code): "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        case let .resolve(host, message): "cannot resolve \(host): \(message)"
        case .connectionClosed: "the connection was closed by the peer"
        case let .timeout(what): "timed out: \(what)"
        case let .tls(message): "TLS error: \(message)"
        case let .proxy(message): "proxy error: \(message)"
        }
    }
}
