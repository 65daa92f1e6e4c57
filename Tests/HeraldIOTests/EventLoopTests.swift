import Foundation
import Testing
import Synchronization
@testable import HeraldIO

private let loop = EventLoopGroup.shared.next()

private final class Counter: Sendable {
    let value = Atomic<Int>(0)
    func add() { value.wrappingAdd(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

@Suite struct EventLoopTests {

    @Test func tasksFromManyThreadsAllRunOnTheLoopThread() async throws {
        let ran = Counter(), offLoop = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<500 {
                        loop.execute {
                            if !loop.inLoop { offLoop.add() }
                            ran.add()
                        }
                    }
                }
            }
        }
        let count = try await loop.submit { ran.count }
        #expect(count == 4000, "a task submitted after the others runs after them")
        #expect(offLoop.count == 0)
    }

    /// `herald send` feeds its connections from a task that prefers their loop: that task's code must run on the
    /// loop's thread, before its first wait and after each one; the loop must run its other work while the task
    /// waits; and after the preference's scope the code is back on Swift's pool (`herald send` then shuts its loop
    /// down, which waits for the loop's thread only from another thread).
    @Test func aTaskThatPrefersTheLoopRunsOnItsThreadAcrossWaits() async throws {
        let own = EventLoop(name: "task-executor")
        defer { own.shutdown() }
        let ranMeanwhile = Atomic<Int>(0)
        let onLoop = await withTaskExecutorPreference(own) { () async -> [Bool] in
            var seen = [own.inLoop]
            for round in 1...3 {
                own.execute { ranMeanwhile.store(round, ordering: .relaxed) }
                try? await Task.sleep(for: .milliseconds(5))
                seen.append(own.inLoop && ranMeanwhile.load(ordering: .relaxed) == round)
                // A wait that another thread ends: the resumption comes back to the loop too.
                let value = await withCheckedContinuation { (cont: CheckedContinuation<Int, Never>) in
                    Thread.detachNewThread { cont.resume(returning: 1) }
                }
                seen.append(own.inLoop && value == 1)
            }
            return seen
        }
        #expect(!own.inLoop, "after the scope, Swift's pool again")
        #expect(onLoop == Array(repeating: true, count: 7), "on the loop, which ran its own work during each wait")
    }

    /// `top -H` and `perf` name a loop's thread by the loop's name. Foundation's `Thread.name` never reached
    /// the kernel on Linux, so a loop showed up under the name of the thread that made it, a dispatch
    /// worker's ("user-initiated-qos", "default-qos"), like the threads of Swift's pool.
    @Test func theLoopsThreadCarriesItsNameInTheKernel() async throws {
        let name = try await EventLoopGroup.shared.next().submit {
            try String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(name.hasPrefix("herald-io-"))
        let long = EventLoop(name: "a-loop-with-a-long-name")
        defer { long.shutdown() }
        let cut = try await long.submit {
            try String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(cut == "a-loop-with-a-l", "the kernel keeps the name's first 15 bytes")
    }

    @Test func timersFireInDeadlineOrderAndCancelledOnesDoNot() async throws {
        let fired = Mutex<[Int]>([])
        try await loop.submit {
            loop.schedule(after: .milliseconds(60)) { fired.withLock { $0.append(3) } }
            loop.schedule(after: .milliseconds(20)) { fired.withLock { $0.append(1) } }
            let cancelled = loop.schedule(after: .milliseconds(30)) { fired.withLock { $0.append(99) } }
            loop.schedule(after: .milliseconds(40)) { fired.withLock { $0.append(2) } }
            loop.cancelTimer(cancelled)
        }
        for _ in 0..<100 where fired.withLock({ $0.count }) < 3 { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(fired.withLock { $0 } == [1, 2, 3])
    }

    @Test func aTimerMayScheduleAnotherFromItsBody() async throws {
        let ticks = Atomic<Int>(0)
        try await loop.submit {
            func tick() {
                if ticks.wrappingAdd(1, ordering: .relaxed).newValue < 5 { loop.schedule(after: .milliseconds(5), tick) }
            }
            loop.schedule(after: .milliseconds(5), tick)
        }
        for _ in 0..<100 where ticks.load(ordering: .relaxed) < 5 { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(ticks.load(ordering: .relaxed) == 5, "and stops when told")
    }

    @Test func resolvingAnUnknownHostSaysWhichHost() {
        #expect(throws: IOError.self) { try SocketAddress.resolve(host: "no-such-host.invalid", port: 443) }
        do {
            _ = try SocketAddress.resolve(host: "no-such-host.invalid", port: 443)
        } catch {
            #expect("\(error)".contains("no-such-host.invalid"))
        }
    }

    @Test func proxyURLsParse() {
        let p = ProxyConfiguration(url: "http://user:pa:ss@proxy.corp:3128/")
        #expect(p?.host == "proxy.corp")
        #expect(p?.port == 3128)
        #expect(p?.credentials == "user:pa:ss")
        #expect(ProxyConfiguration(url: "proxy.corp") == nil, "a port is required")
    }
}
