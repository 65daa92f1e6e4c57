import Foundation
import Testing
import Synchronization
import HeraldIO
@testable import HeraldHTTP

/// A minimal HTTP CONNECT proxy on a local port, written with blocking sockets on threads of its own,
/// that records what it was asked to reach and relays bytes both ways.
final class TestConnectProxy: @unchecked Sendable {
    let port: Int
    let requests = Mutex<[String]>([])
    private let listenFD: Int32
    let requireAuth: String?

    init(requireAuth: String? = nil) throws {
        self.requireAuth = requireAuth
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        listenFD = fd
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        listen(fd, 16)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        port = Int(UInt16(bigEndian: addr.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    func stop() { shutdown(listenFD, Int32(SHUT_RDWR)); close(listenFD) }

    private func acceptLoop() {
        while true {
            let client = accept(listenFD, nil, nil)
            if client < 0 { return }
            Thread.detachNewThread { [self] in handle(client) }
        }
    }

    private func handle(_ client: Int32) {
        var head = [UInt8]()
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            if recv(client, &byte, 1, 0) != 1 { close(client); return }
            head.append(byte)
        }
        let text = String(decoding: head, as: UTF8.self)
        requests.withLock { $0.append(text) }
        let target = text.split(separator: " ")[1]
        if let auth = requireAuth, !text.contains("Proxy-Authorization: Basic \(Data(auth.utf8).base64EncodedString())") {
            _ = "HTTP/1.1 407 Proxy Authentication Required\r\n\r\n".withCString { send(client, $0, strlen($0), 0) }
            close(client)
            return
        }
        let parts = target.split(separator: ":")
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(Int(parts[1])!).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        _ = "HTTP/1.1 200 Connection Established\r\n\r\n".withCString { send(client, $0, strlen($0), 0) }
        Thread.detachNewThread { Self.pump(from: upstream, to: client) }
        Self.pump(from: client, to: upstream)
    }

    private static func pump(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = recv(from, &buffer, buffer.count, 0)
            if n <= 0 { shutdown(to, Int32(SHUT_WR)); return }
            _ = send(to, buffer, n, Int32(MSG_NOSIGNAL))
        }
    }
}

@Suite struct ProxyTests {
    @Test func http2OverTLSGoesThroughAConnectProxy() async throws {
        let server = try HTTP2Server(configuration: .init(tls: TLSServerConfiguration(identity: TestCertificates.shared.serverIdentity)), delegate: EchoDelegate())
        try await server.start()
        let proxy = try TestConnectProxy(requireAuth: "alice:secret")
        defer { proxy.stop(); Task { await server.stop() } }
        let ctx = try TLSContext(client: TLSClientConfiguration(trust: .caFile(TestCertificates.shared.caFile)))
        let conn = try await HTTP2ClientConnection.connect(.init(host: "localhost", port: server.port, tls: ctx,
                                                                 proxy: ProxyConfiguration(url: "http://alice:secret@127.0.0.1:\(proxy.port)")))
        let response = try await conn.send(HTTP2ClientRequest(path: "/3/device/ab", body: Array("through".utf8)))
        #expect(response.status == 200)
        #expect(response.body == Array("through".utf8))
        let asked = proxy.requests.withLock { $0 }
        #expect(asked.first?.hasPrefix("CONNECT localhost:\(server.port) HTTP/1.1") == true)
        conn.close()
    }

    @Test func aRefusingProxyIsReportedWithItsAnswer() async throws {
        let proxy = try TestConnectProxy(requireAuth: "alice:secret")
        defer { proxy.stop() }
        do {
            _ = try await HTTP2ClientConnection.connect(.init(host: "localhost", port: 1, tls: nil,
                                                              proxy: ProxyConfiguration(host: "127.0.0.1", port: proxy.port)))
            Issue.record("connected through a proxy that refused")
        } catch let error as HTTP2ClientError {
            #expect(error.description.contains("407"))
        }
    }
}
