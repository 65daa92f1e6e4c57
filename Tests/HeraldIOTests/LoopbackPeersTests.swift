import Foundation
import Testing
import Synchronization
@testable import HeraldIO

/// Both ends of a connection this process makes to itself run on one loop (`LoopbackPeers`): a fan-out to
/// the built-in simulator idled a seventh of the machine when they did not.
@Suite struct LoopbackPeersTests {

    @Test func aConnectionThisProcessDialsIsServedOnTheLoopThatDialledIt() async throws {
        let group = EventLoopGroup(loopCount: 4, name: "loopback-peers")
        defer { group.shutdown() }
        let (listener, accepted) = try await AcceptedLoops.listening(on: group)
        // Round-robin would hand these out as 1, 2, 3, 0, 1 (the listener itself took loop 0).
        for index in [3, 3, 0, 2, 2] {
            let dialler = Dialler()
            StreamConnection.connect(host: "127.0.0.1", port: listener.port, tls: nil, loop: group.loops[index], delegate: dialler)
            let next = try #require(accepted.waitForNext())
            #expect(next.loop == "loopback-peers-\(index)", "served on the dialling side's loop")
            #expect(!LoopbackPeers.isRecorded(port: next.port), "an accepted dial leaves nothing behind")
            #expect(dialler.waitUntilClosed(), "the listener closed it")
        }
        await listener.stop()
    }

    @Test func aDialFromALoopOutsideTheListenersGroupGetsOneOfTheGroup() async throws {
        let group = EventLoopGroup(loopCount: 2, name: "loopback-group")
        defer { group.shutdown() }
        let outsider = EventLoopGroup(loopCount: 1, name: "loopback-outsider")
        defer { outsider.shutdown() }
        let (listener, accepted) = try await AcceptedLoops.listening(on: group)
        let dialler = Dialler()
        StreamConnection.connect(host: "127.0.0.1", port: listener.port, tls: nil, loop: outsider.loops[0], delegate: dialler)
        let next = try #require(accepted.waitForNext())
        #expect(next.loop.hasPrefix("loopback-group-"), "a group's connection lives on its loops, which stop with it")
        #expect(dialler.waitUntilClosed())
        await listener.stop()
    }

    @Test func aDialNoListenerOfThisProcessAcceptsIsForgottenWhenItCloses() throws {
        // A listening socket that is not a TCPListener, as another process's would be.
        let server = try BlockingServer()
        let loop = EventLoop(name: "loopback-elsewhere")
        let dialler = Dialler()
        StreamConnection.connect(host: "127.0.0.1", port: server.port, tls: nil, loop: loop, delegate: dialler)
        let stream = try #require(dialler.waitUntilReady())
        let peer = try server.acceptOne()
        defer { Glibc.close(peer.fd) }
        #expect(LoopbackPeers.isRecorded(port: peer.port), "the dial is kept until accepted here or closed")
        loop.execute { stream.close() }
        #expect(dialler.waitUntilClosed())
        #expect(!LoopbackPeers.isRecorded(port: peer.port), "closing the dialled connection forgets it")
    }
}

/// The loops a listener handed its connections to, and the ports they came from, in order.
private final class AcceptedLoops: Sendable {
    /// A listener on 127.0.0.1 over `group` that records each connection's loop, then closes it.
    static func listening(on group: EventLoopGroup) async throws -> (TCPListener, AcceptedLoops) {
        let accepted = AcceptedLoops()
        let listener = try await TCPListener.start(host: "127.0.0.1", port: 0, group: group) { fd, address, loop in
            accepted.append(loop.name, from: address.port)
            Glibc.close(fd)
        }
        return (listener, accepted)
    }

    private let accepted = Mutex<[(loop: String, port: Int)]>([])
    private let arrived = DispatchSemaphore(value: 0)
    private let taken = Mutex(0)

    func append(_ loop: String, from port: Int) {
        accepted.withLock { $0.append((loop, port)) }
        arrived.signal()
    }

    /// The next accepted connection, or nil after 10 s.
    func waitForNext() -> (loop: String, port: Int)? {
        guard arrived.wait(timeout: .now() + 10) == .success else { return nil }
        let index = taken.withLock { t in defer { t += 1 }; return t }
        return accepted.withLock { $0[index] }
    }
}

private final class Dialler: ConnectionDelegate, @unchecked Sendable {
    private let stream = Mutex<StreamConnection?>(nil)
    private let ready = DispatchSemaphore(value: 0)
    private let closed = DispatchSemaphore(value: 0)

    func waitUntilReady() -> StreamConnection? {
        guard ready.wait(timeout: .now() + 10) == .success else { return nil }
        return stream.withLock { $0 }
    }

    func waitUntilClosed() -> Bool { closed.wait(timeout: .now() + 10) == .success }

    func streamDidBecomeReady(_ stream: StreamConnection) {
        self.stream.withLock { $0 = stream }
        ready.signal()
    }

    func stream(_ stream: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {}

    func streamDidClose(_ stream: StreamConnection, error: IOError?) { closed.signal() }
}
