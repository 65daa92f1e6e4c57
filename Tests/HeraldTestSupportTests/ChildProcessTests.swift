import Foundation
import Testing
import HeraldTestSupport

/// `ChildProcess` against real children (sh, sleep, ls). Serialized: one test holds more than 1100
/// descriptors for a moment, which the other tests here need not share.
@Suite(.serialized) struct ChildProcessTests {
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func exitStatusAndBothStreamsAreReported() async throws {
        let result = try await ChildProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(result.status == 3)
        #expect(Self.text(result.output) == "out\n")
        #expect(Self.text(result.error) == "err\n")
    }

    @Test func aChattyChildIsReadCompletely() async throws {
        let result = try await ChildProcess.run("sh", ["-c", "yes | head -c 1000000; yes e | head -c 300000 >&2"])
        #expect(result.status == 0)
        #expect(result.output.count == 1_000_000)
        #expect(result.output.allSatisfy { $0 == UInt8(ascii: "y") || $0 == UInt8(ascii: "\n") })
        #expect(result.error.count == 300_000)
    }

    @Test func standardErrorCanFollowStandardOutput() async throws {
        let result = try await ChildProcess.run("/bin/sh", ["-c", "echo one; echo two >&2; echo three"], error: .sameAsOutput)
        #expect(Self.text(result.output) == "one\ntwo\nthree\n")
        #expect(result.error.isEmpty)
    }

    @Test func outputCanGoToAFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-child-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let child = try ChildProcess("/bin/sh", ["-c", "echo to-file; echo also >&2"], output: .file(path), error: .sameAsOutput)
        #expect(await child.exit() == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "to-file\nalso\n")
        #expect(child.output.isEmpty)
    }

    @Test func inputBytesReachTheChild() async throws {
        let input = Array((0..<300_000).map { UInt8(truncatingIfNeeded: $0) })
        let result = try await ChildProcess.run("/bin/cat", input: input)
        #expect(result.status == 0)
        #expect(result.output == input)
        // Without input, standard input is /dev/null: the child does not wait for a terminal.
        #expect(try await ChildProcess.run("/bin/cat").output.isEmpty)
    }

    @Test func workingDirectoryAndEnvironment() async throws {
        let result = try await ChildProcess.run("/bin/sh", ["-c", "pwd; echo \"$HERALD_CHILD_TEST\"; echo \"${HOME-unset}\""],
                                                environment: ["HERALD_CHILD_TEST": "value with spaces"], workingDirectory: "/tmp")
        #expect(Self.text(result.output) == "/tmp\nvalue with spaces\nunset\n")
        // Without an environment, the child gets the test process's.
        let path = try #require(ProcessInfo.processInfo.environment["PATH"])
        #expect(Self.text(try await ChildProcess.run("/bin/sh", ["-c", "echo \"$PATH\""]).output) == path + "\n")
    }

    @Test func sigkillOfASleepingChildReportsTheSignal() async throws {
        let child = try ChildProcess("/bin/sleep", ["300"])
        #expect(child.isRunning)
        child.signal(SIGKILL)
        #expect(await child.exit() == 128 + SIGKILL)
        #expect(!child.isRunning)
        #expect(child.waitForExit() == 128 + SIGKILL)
        child.signal(SIGKILL)   // reaped: nothing is sent
    }

    @Test func sigtermAndABlockingWait() async throws {
        let child = try ChildProcess("/bin/sleep", ["300"])
        child.signal(SIGTERM)
        let status = await Task.detached { child.waitForExit() }.value
        #expect(status == 128 + SIGTERM)
    }

    @Test func aProgramThatCannotBeStartedSaysWhy() {
        #expect(throws: ChildProcessError.self) { try ChildProcess("/nonexistent/herald-child") }
        do {
            _ = try ChildProcess("/nonexistent/herald-child")
        } catch {
            #expect("\(error)".contains("/nonexistent/herald-child"))
            #expect("\(error)".contains("No such file or directory"))
        }
    }

    @Test func theChildDoesNotInheritTheTestProcessDescriptors() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-child-fd-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)   // no O_CLOEXEC
        try #require(fd >= 0)
        defer { close(fd) }
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socketFD >= 0)
        defer { close(socketFD) }
        // The test process has them; a sleeping child has only 0, 1 and 2.
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) == path)
        let child = try ChildProcess("/bin/sleep", ["300"])
        defer { child.signal(SIGKILL); _ = child.waitForExit() }
        // Right after exec the dynamic loader briefly holds a descriptor of its own (the libraries it maps):
        // wait for the child to settle. An inherited descriptor never goes away, so this still fails for one.
        var descriptors: Set<String> = []
        for _ in 0..<100 {
            descriptors = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.pid)/fd"))
            if descriptors == ["0", "1", "2"] { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(descriptors == ["0", "1", "2"])
        #expect(!descriptors.contains(String(fd)) && !descriptors.contains(String(socketFD)))
    }

    @Test func manyChildrenStartWhileTheTestProcessHoldsManyDescriptors() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let wanted = rlim_t(4096)
        if limit.rlim_cur < wanted {
            limit.rlim_cur = min(wanted, limit.rlim_max)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        try #require(limit.rlim_cur >= 1300, "the hard descriptor limit is too low for this test")
        let held = (0..<1100).map { _ in open("/dev/null", O_RDONLY) }
        defer { held.forEach { close($0) } }
        try #require(held.allSatisfy { $0 >= 0 })
        #expect(try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count > 1100)

        let counts = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<40 {
                group.addTask { Self.text(try await ChildProcess.run("/bin/sh", ["-c", "ls /proc/self/fd | wc -l"]).output) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts.count == 40)
        // ls sees 0, 1, 2 and the directory it reads.
        #expect(counts.allSatisfy { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) == 4 })
    }
}
