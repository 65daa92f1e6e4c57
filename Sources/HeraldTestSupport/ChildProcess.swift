#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A child process for tests (openssl, sh, python clients, the built `herald` binary), started with
/// `posix_spawn` instead of Foundation's `Process`.
///
/// Why it exists: in swift-corelibs-foundation as shipped with Swift 6.3.1, `Process.run` finds the highest
/// open descriptor by reading `/proc/self/fd` and copies the whole 256-byte `d_name` of every entry, an
/// over-read that crashes the test run with signal 11 in `memmove`, the likelier the more descriptors the
/// test process holds (fixed upstream by swift-corelibs-foundation PR #5472). Here the child inherits only
/// standard input, output and error (`posix_spawn_file_actions_addclosefrom_np(3)`), so no socket or file
/// of another test that runs at the same time lingers in it either.
///
/// Blocking work (waiting for the child, reading its pipes, writing its input) runs on threads of its own,
/// never on the cooperative pool: a chatty child cannot stall on a full pipe, and `exit()` can be awaited
/// while the server under test answers the child on the pool.
public final class ChildProcess: @unchecked Sendable {
    /// Where the child's standard output or standard error goes.
    public enum Output: Sendable {
        /// Into a pipe read on a background thread; the bytes are `output` / `errorOutput` after exit.
        case capture
        /// The test process's own descriptor.
        case inherit
        /// `/dev/null`.
        case discard
        /// A file, created or truncated (a path relative to the test process's directory).
        case file(String)
        /// Standard error only: wherever standard output goes (`2>&1`).
        case sameAsOutput
    }

    /// The child's process id (reaped, and so never signalled, once `isRunning` is false and the exit
    /// status is known).
    public let pid: Int32

    /// Guards everything below; its condition is broadcast when a reader finishes and on exit.
    private let state = NSCondition()
    private var exited = false
    private var openReaders = 0
    private var status: Int32?
    private var exitWaiters: [CheckedContinuation<Int32, Never>] = []
    private var capturedOutput: [UInt8] = []
    private var capturedError: [UInt8] = []

    /// Starts `executable` (an absolute path, or a bare name looked up on the test process's `PATH`) with
    /// `arguments`. `environment` nil: the test process's environment. `workingDirectory` nil: the test
    /// process's. `input`: bytes written to standard input, then closed; nil: standard input is `/dev/null`.
    public init(_ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
                workingDirectory: String? = nil, input: [UInt8]? = nil,
                output: Output = .capture, error errorDestination: Output = .capture) throws {
        precondition(!Self.isSameAsOutput(output), "sameAsOutput is for standard error only")
        guard let gnu = GNUSpawnActions.shared else {
            throw ChildProcessError(executable, "posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)", errno: ENOSYS)
        }
        _ = Self.childrenDoNotKillTheTestProcess

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32] = []   // closed here on failure; otherwise owned by the I/O threads
        var childEnds: [Int32] = []    // closed here once the child has its copies
        defer { childEnds.forEach { _ = close($0) } }

        // Close-on-exec, so that children started elsewhere at this moment do not keep them (ours close
        // everything from 3 anyway). `pipe2` is not visible to Swift (a GNU extension).
        func pipeEnds() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { throw ChildProcessError(executable, "pipe", errno: errno) }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            return (fds[0], fds[1])
        }
        var inputEnd: Int32?, outputEnd: Int32?, errorEnd: Int32?
        do {
            if input != nil {
                let ends = try pipeEnds()
                parentEnds.append(ends.write); childEnds.append(ends.read)
                inputEnd = ends.write
                posix_spawn_file_actions_adddup2(&actions, ends.read, 0)
            } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
            for (target, destination) in [(Int32(1), output), (Int32(2), errorDestination)] {
                switch destination {
                case .capture:
                    let ends = try pipeEnds()
                    parentEnds.append(ends.read); childEnds.append(ends.write)
                    if target == 1 { outputEnd = ends.read } else { errorEnd = ends.read }
                    posix_spawn_file_actions_adddup2(&actions, ends.write, target)
                case .inherit:
                    break
                case .discard:
                    posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
                case .file(let path):
                    posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                case .sameAsOutput:
                    posix_spawn_file_actions_adddup2(&actions, 1, 2)
                }
            }
            if let workingDirectory {
                _ = gnu.addChdir(&actions, workingDirectory)
            }
            _ = gnu.addClosefrom(&actions, 3)

            // Signals the test process ignores (SIGPIPE, see below) would stay ignored across exec.
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var noSignals = sigset_t(), allSignals = sigset_t()
            sigemptyset(&noSignals)
            sigfillset(&allSignals)
            posix_spawnattr_setsigmask(&attributes, &noSignals)
            posix_spawnattr_setsigdefault(&attributes, &allSignals)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
            defer { envp?.forEach { free($0) } }

            var child: pid_t = 0
            let spawn = executable.contains("/") ? posix_spawn : posix_spawnp
            let result: Int32 = envp.map { envp in
                envp.withUnsafeBufferPointer { spawn(&child, executable, &actions, &attributes, argv, $0.baseAddress) }
            } ?? spawn(&child, executable, &actions, &attributes, argv, environ)
            guard result == 0 else { throw ChildProcessError(executable, "posix_spawn", errno: result) }
            pid = child
        } catch {
            parentEnds.forEach { _ = close($0) }
            throw error
        }

        // The child has its copies: the I/O threads own the parent's ends from here.
        if let inputEnd, let input { Self.detach { Self.write(input, to: inputEnd) } }
        openReaders = [outputEnd, errorEnd].compactMap { $0 }.count
        if let outputEnd { Self.detach { self.finishReading(Self.readAll(outputEnd), isOutput: true) } }
        if let errorEnd { Self.detach { self.finishReading(Self.readAll(errorEnd), isOutput: false) } }
        Self.detach { self.reap() }
    }

    /// Starts a child, waits for it off the cooperative pool, and returns its exit status (or 128 + the
    /// signal that ended it) with what it wrote to standard output and standard error.
    public static func run(_ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
                           workingDirectory: String? = nil, input: [UInt8]? = nil,
                           error: Output = .capture) async throws -> (status: Int32, output: [UInt8], error: [UInt8]) {
        let child = try ChildProcess(executable, arguments, environment: environment, workingDirectory: workingDirectory,
                                     input: input, output: .capture, error: error)
        let status = await child.exit()
        return (status, child.output, child.errorOutput)
    }

    /// True until the child has exited.
    public var isRunning: Bool {
        state.lock(); defer { state.unlock() }
        return !exited
    }

    /// Sends `signal` (SIGKILL, SIGTERM, SIGHUP, ...) unless the child has already been reaped.
    public func signal(_ signal: Int32) {
        state.lock(); defer { state.unlock() }
        if status == nil { _ = kill(pid, signal) }
    }

    /// Blocks the calling thread until the child has exited and its captured output is read; returns the
    /// exit status, or 128 + the signal that ended it. Not for async code: use `exit()` there.
    public func waitForExit() -> Int32 {
        state.lock(); defer { state.unlock() }
        while status == nil { state.wait() }
        return status!
    }

    /// Waits, without holding a thread of the cooperative pool, until the child has exited and its captured
    /// output is read; returns the exit status, or 128 + the signal that ended it.
    public func exit() async -> Int32 {
        await withCheckedContinuation { continuation in
            state.lock()
            if let status { state.unlock(); continuation.resume(returning: status); return }
            exitWaiters.append(continuation)
            state.unlock()
        }
    }

    /// Standard output, when captured: complete once the child has exited (`exit()`, `waitForExit()`).
    public var output: [UInt8] {
        state.lock(); defer { state.unlock() }
        return capturedOutput
    }

    /// Standard error, when captured: complete once the child has exited.
    public var errorOutput: [UInt8] {
        state.lock(); defer { state.unlock() }
        return capturedError
    }

    // MARK: - Background threads

    /// Waits for the exit without reaping (`WNOWAIT`), so that `signal` can never hit a reused pid; then waits
    /// for the readers (EOF once the child and anything it started have closed their copies), then reaps.
    private func reap() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        state.lock()
        exited = true
        while openReaders > 0 { state.wait() }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        let termination = raw & 0x7f
        let code = termination == 0 ? (raw >> 8) & 0xff : 128 + termination
        status = code
        let waiters = exitWaiters
        exitWaiters = []
        state.broadcast()
        state.unlock()
        waiters.forEach { $0.resume(returning: code) }
    }

    private func finishReading(_ bytes: [UInt8], isOutput: Bool) {
        state.lock()
        if isOutput { capturedOutput = bytes } else { capturedError = bytes }
        openReaders -= 1
        state.broadcast()
        state.unlock()
    }

    private static func readAll(_ fd: Int32) -> [UInt8] {
        defer { _ = close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { bytes.append(contentsOf: chunk[0..<count]) }
            else if count < 0 && errno == EINTR { continue }
            else { return bytes }
        }
    }

    /// Stops early, without complaint, if the child closes its standard input (EPIPE).
    private static func write(_ bytes: [UInt8], to fd: Int32) {
        defer { _ = close(fd) }
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if count > 0 { offset += count } else if count < 0 && errno == EINTR { continue } else { return }
            }
        }
    }

    private static func detach(_ body: @escaping @Sendable () -> Void) {
        Thread.detachNewThread(body)
    }

    private static func isSameAsOutput(_ output: Output) -> Bool {
        if case .sameAsOutput = output { return true }
        return false
    }

    /// A child that closes its standard input early would otherwise end the test process with SIGPIPE
    /// while its input is written; the write then fails with EPIPE instead. Children get the default back.
    private static let childrenDoNotKillTheTestProcess: Void = {
        _ = Glibc.signal(SIGPIPE, SIG_IGN)
    }()
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` and `_addchdir_np` (2.34, 2.29): GNU extensions the
/// Glibc module does not import (it is not built with `_GNU_SOURCE`), so they are looked up by name once.
private struct GNUSpawnActions: Sendable {
    typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32
    let addClosefrom: AddClosefrom
    let addChdir: AddChdir

    static let shared: GNUSpawnActions? = {
        let libc = dlopen(nil, RTLD_NOW)
        guard let closefrom = dlsym(libc, "posix_spawn_file_actions_addclosefrom_np"),
              let chdir = dlsym(libc, "posix_spawn_file_actions_addchdir_np") else { return nil }
        return GNUSpawnActions(addClosefrom: unsafeBitCast(closefrom, to: AddClosefrom.self),
                               addChdir: unsafeBitCast(chdir, to: AddChdir.self))
    }()
}
