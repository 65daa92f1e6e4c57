import Foundation
import Testing
import Synchronization
@testable import HeraldIO

/// What a dialled connection sees when the peer resets it: the bytes the peer sent before the reset still
/// reach the delegate, then the close. An HTTP/2 client that lost them (its server's GOAWAY and last
/// answers) would send again requests the server had taken.
@Suite struct StreamConnectionResetTests {

    @Test func bytesSentBeforeAResetAreDeliveredEvenWhenAWriteFailsFirst() async throws {
        let server = try BlockingServer()
        let loop = EventLoop(name: "reset-test")
        let recorder = Recorder()
        StreamConnection.connect(host: "127.0.0.1", port: server.port, tls: nil, loop: loop, delegate: recorder)
        let peer = try server.acceptOne().fd
        guard let stream = recorder.waitUntilReady() else {
            Glibc.close(peer)
            Issue.record("the connection did not open")
            return
        }

        // More than the kernel's buffers take, and the server never reads: the connection keeps output
        // queued, so it watches for writability and tries to write as soon as the socket changes.
        let queued = try await loop.submit { () -> Int in
            stream.write([UInt8](repeating: 0x61, count: 16 << 20))
            return stream.pendingOutput
        }
        #expect(queued > 0, "the write stays queued")

        // The loop is busy while the server says its last words and closes with our bytes unread, which
        // makes its kernel reset the connection: when the loop looks again, the socket is readable,
        // writable and in error at once, and the write fails before anything is read.
        let started = DispatchSemaphore(value: 0)
        loop.execute {
            started.signal()
            usleep(400_000)
        }
        started.wait()
        let lastWords = Array("GOAWAY and the last answers".utf8)
        #expect(lastWords.withUnsafeBytes { Glibc.send(peer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == lastWords.count)
        usleep(50_000)
        Glibc.close(peer)

        let closed = recorder.waitUntilClosed()
        #expect(closed, "the connection reports its close")
        #expect(recorder.received == lastWords, "what the peer sent before the reset is read first")
    }
}


private final class Recorder: ConnectionDelegate, @unchecked Sendable {
    private let state = Mutex<(stream: StreamConnection?, bytes: [UInt8], closed: Bool)>((nil, [], false))
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    var received: [UInt8] { state.withLock { $0.bytes } }

    func waitUntilReady() -> StreamConnection? {
        guard ready.wait(timeout: .now() + 10) == .success else { return nil }
        return state.withLock { $0.stream }
    }

    func waitUntilClosed() -> Bool { done.wait(timeout: .now() + 10) == .success }

    func streamDidBecomeReady(_ stream: StreamConnection) {
        state.withLock { $0.stream = stream }
        ready.signal()
    }

    func stream(_ stream: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        state.withLock { $0.bytes.append(contentsOf: bytes) }
    }

    func streamDidReachEndOfInput(_ stream: StreamConnection) { stream.close() }

    func streamDidClose(_ stream: StreamConnection, error: IOError?) {
        state.withLock { $0.closed = true }
        done.signal()
    }
}
