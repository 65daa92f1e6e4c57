import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server for tests: listens on 127.0.0.1 on an ephemeral port, one thread per
/// connection, records every request and answers from a script (then from a default handler).
///
/// It can be created bound but not listening, so connections are refused until ``startListening()``.
final class TestHTTPServer: @unchecked Sendable {
    // @unchecked: mutable state is guarded by `lock`; the socket is only closed once (guarded too).
    struct Request: Sendable {
        var method: String
        var path: String
        var headers: [String: String]
        var body: Data

        var json: JSONObject? {
            (try? JSONSerialization.jsonObject(with: body)).flatMap { $0 as? [String: Any] }.map(JSONObject.init)
        }
    }

    enum Reply: Sendable {
        /// A response; `delay` holds it back first.
        case respond(status: Int, body: String = "", headers: [String: String] = [:], delay: TimeInterval = 0)
        /// Close the connection without answering.
        case hangUp
        /// A 200 without Content-Length: the body ends when the connection closes.
        case unsized(body: String, headers: [String: String] = [:])

        static func json(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Reply {
            .respond(status: status, body: body, headers: ["Content-Type": "application/json"].merging(headers) { $1 })
        }
    }

    private let lock = NSLock()
    private let fd: Int32
    private var recorded: [Request] = []
    private var script: [Reply] = []
    private var fallback: @Sendable (Request) -> Reply
    private var closed = false
    private var listening = false
    let port: Int

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    init(listening: Bool = true, fallback: @escaping @Sendable (Request) -> Reply = { _ in .json(200, "{}") }) throws {
        self.fallback = fallback
        (fd, port) = try Self.bindLoopback()
        if listening { startListening() }
    }

    /// A TCP socket bound to 127.0.0.1 on a port the system picks.
    private static func bindLoopback() throws -> (Int32, Int) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    deinit { stop() }

    /// Starts accepting connections (until then, connecting is refused: the socket is bound, not listening).
    func startListening() {
        lock.lock()
        defer { lock.unlock() }
        guard !closed, !listening, listen(fd, 64) == 0 else { return }
        listening = true
        Thread.detachNewThread { [self] in acceptLoop(fd) }
    }

    /// Stops accepting. A listening socket is only shut down here (which wakes `accept`) and closed by the
    /// accept loop itself, so its descriptor cannot be reused by another test's socket while the loop
    /// might still call `accept` on it.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        closed = true
        if listening {
            shutdown(fd, Int32(SHUT_RDWR))
        } else {
            close(fd)
        }
    }

    /// Queues replies used, in order, for the next requests.
    func enqueue(_ replies: Reply...) {
        lock.lock()
        script.append(contentsOf: replies)
        lock.unlock()
    }

    /// Replaces the handler used once the script is exhausted.
    func setFallback(_ handler: @escaping @Sendable (Request) -> Reply) {
        lock.lock()
        fallback = handler
        lock.unlock()
    }

    var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    private func acceptLoop(_ listener: Int32) {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        func fill() -> Bool {
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = buffer.firstRange(of: separator)?.lowerBound
            if headerEnd == nil && !fill() { return }
        }
        let head = String(decoding: buffer[0..<headerEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        if headers["expect"]?.lowercased() == "100-continue" {
            write(connection, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        let bodyStart = headerEnd! + separator.count
        while buffer.count - bodyStart < length {
            if !fill() { return }
        }
        let request = Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers,
                              body: Data(buffer[bodyStart..<(bodyStart + length)]))
        lock.lock()
        recorded.append(request)
        let reply = script.isEmpty ? fallback(request) : script.removeFirst()
        lock.unlock()

        switch reply {
        case .hangUp:
            return
        case .respond(let status, let body, let extra, let delay):
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            let bytes = Array(body.utf8)
            var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n"
            for (name, value) in extra { text += "\(name): \(value)\r\n" }
            text += "\r\n"
            write(connection, Array(text.utf8) + bytes)
        case .unsized(let body, let extra):
            var text = "HTTP/1.1 200 OK\r\nConnection: close\r\n"
            for (name, value) in extra { text += "\(name): \(value)\r\n" }
            write(connection, Array((text + "\r\n").utf8) + Array(body.utf8))
        }
    }

    private func write(_ connection: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            let sent = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, flags) }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        default: "Status"
        }
    }
}

/// A decoded JSON request body, wrapped so tests can pass it around.
struct JSONObject: @unchecked Sendable {
    // @unchecked: built once from JSONSerialization output and never mutated.
    let members: [String: Any]

    subscript(key: String) -> Any? { members[key] }
    func string(_ key: String) -> String? { members[key] as? String }
    func strings(_ key: String) -> [String]? { members[key] as? [String] }
    var keys: Set<String> { Set(members.keys) }
}
