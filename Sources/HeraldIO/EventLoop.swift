import Foundation
import Synchronization
internal import CHeraldShims

/// Something registered with an event loop for readiness on a descriptor. Called on the loop thread only.
public protocol EventHandler: AnyObject {
    func handleEvent(readable: Bool, writable: Bool, hangup: Bool)
}

/// One epoll loop on a thread it owns. Work from other threads arrives through `execute`, which wakes the
/// loop with an eventfd; timers live in a heap on the loop. Everything marked loop-confined is only
/// touched on the loop thread, which is why the class can be `@unchecked Sendable`.
public final class EventLoop: @unchecked Sendable {
    public let name: String
    private let epfd: Int32
    private let wakeFD: Int32
    private let inbox = Mutex<[@Sendable () -> Void]>([])
    private let threadID = Atomic<UInt>(0)
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)

    // loop-confined
    private var handlers: [Int32: EventHandler] = [:]
    private var timers = TimerHeap()

    private static let wakeToken = UInt64.max

    /// OpenSSL writes to the socket with write(2), which raises SIGPIPE when the peer has gone; the default
    /// action would kill the process. Errors are handled where the write returns, so the signal is ignored,
    /// once, for the process that uses event loops.
    private static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    public init(name: String = "herald-loop") {
        Self.ignoreSIGPIPE
        self.name = name
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        precondition(epfd >= 0, "epoll_create1 failed: \(String(cString: strerror(errno)))")
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(wakeFD >= 0, "eventfd failed")
        _ = herald_io_epoll_ctl(epfd, EPOLL_CTL_ADD, wakeFD, EPOLLIN.rawValue, Self.wakeToken)
        let thread = Thread { [unowned self] in self.run() }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
        while threadID.load(ordering: .acquiring) == 0 { sched_yield() }
    }

    deinit {
        close(epfd)
        close(wakeFD)
    }

    /// True on this loop's own thread.
    public var inLoop: Bool { threadID.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Runs `task` on the loop thread, soon. Safe from any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        let wasEmpty = inbox.withLock { box -> Bool in
            box.append(task)
            return box.count == 1
        }
        if wasEmpty && !inLoop {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    /// Runs `task` now when already on the loop, otherwise schedules it.
    public func executeOrRun(_ task: @escaping @Sendable () -> Void) {
        if inLoop { task() } else { execute(task) }
    }

    /// Runs `body` on the loop and returns its result to an async caller.
    public func submit<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { cont in
            execute { cont.resume(with: Result { try body() }) }
        }
    }

    /// Stops the loop after the current iteration and waits for its thread to end.
    public func shutdown() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        if inLoop { return }
        execute {}
        finished.wait()
    }

    // MARK: registration (loop thread only)

    public func register(fd: Int32, handler: EventHandler, readable: Bool = true, writable: Bool = false) throws {
        precondition(inLoop)
        guard herald_io_epoll_ctl(epfd, EPOLL_CTL_ADD, fd, Self.mask(readable, writable), UInt64(fd)) == 0 else {
            throw IOError.system("epoll_ctl(ADD)", errno)
        }
        handlers[fd] = handler
    }

    public func modify(fd: Int32, readable: Bool, writable: Bool) {
        precondition(inLoop)
        _ = herald_io_epoll_ctl(epfd, EPOLL_CTL_MOD, fd, Self.mask(readable, writable), UInt64(fd))
    }

    public func unregister(fd: Int32) {
        precondition(inLoop)
        _ = herald_io_epoll_ctl(epfd, EPOLL_CTL_DEL, fd, 0, 0)
        handlers[fd] = nil
    }

    private static func mask(_ readable: Bool, _ writable: Bool) -> UInt32 {
        // Peer hang-ups are watched with input only: once input has ended, a level-triggered RDHUP would
        // otherwise report the same half-close on every wait.
        var m: UInt32 = 0
        if readable { m |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if writable { m |= EPOLLOUT.rawValue }
        return m
    }

    // MARK: timers (loop thread only)

    /// Calls `body` on the loop after `delay`. Returns an id for `cancelTimer`.
    @discardableResult
    public func schedule(after delay: Duration, _ body: @escaping () -> Void) -> TimerID {
        precondition(inLoop)
        return timers.add(deadline: MonotonicTime.now + delay.nanosecondsValue, body)
    }

    public func cancelTimer(_ id: TimerID) {
        precondition(inLoop)
        timers.cancel(id)
    }

    // MARK: the loop

    private func run() {
        herald_io_name_current_thread(name)
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        let capacity = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate(); finished.signal() }
        while running.load(ordering: .relaxed) {
            let timeout = waitTimeout()
            let n = epoll_wait(epfd, events, Int32(capacity), timeout)
            if n < 0 && errno != EINTR { fatalError("epoll_wait: \(String(cString: strerror(errno)))") }
            for i in 0..<max(0, Int(n)) {
                let data = herald_io_event_data(events + i)
                let flags = herald_io_event_flags(events + i)
                if data == Self.wakeToken {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, 8)
                    continue
                }
                guard let handler = handlers[Int32(truncatingIfNeeded: data)] else { continue }
                handler.handleEvent(
                    readable: flags & (EPOLLIN.rawValue | EPOLLPRI.rawValue) != 0,
                    writable: flags & EPOLLOUT.rawValue != 0,
                    hangup: flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue) != 0)
            }
            runInbox()
            let now = MonotonicTime.now
            while let body = timers.popExpired(now: now) { body() }
        }
        runInbox()
    }

    private func waitTimeout() -> Int32 {
        if !inbox.withLock({ $0.isEmpty }) { return 0 }
        guard let next = timers.nextDeadline() else { return 1000 }
        let now = MonotonicTime.now
        if next <= now { return 0 }
        return Int32(min(1000, (next - now + 999_999) / 1_000_000))
    }

    private func runInbox() {
        // Tasks may enqueue more tasks; those run on the next iteration so timers and I/O are not starved.
        let tasks = inbox.withLock { box -> [@Sendable () -> Void] in
            let t = box
            box.removeAll(keepingCapacity: true)
            return t
        }
        for task in tasks { task() }
    }
}

extension Duration {
    /// Whole nanoseconds (negative durations count as zero), for deadlines on `MonotonicTime`.
    public var nanosecondsValue: UInt64 {
        let (s, atto) = components
        return UInt64(max(0, s)) * 1_000_000_000 + UInt64(max(0, atto) / 1_000_000_000)
    }
}

/// Monotonic clock in nanoseconds.
public enum MonotonicTime {
    public static var now: UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
