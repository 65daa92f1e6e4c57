import Foundation
import Testing
import HeraldTestSupport

/// A fresh directory per test, removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "herald-crypto-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try write(name, Array(text.utf8))
    }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }

    func read(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: file(name)))) }

    func readText(_ name: String) throws -> String { String(decoding: try read(name), as: UTF8.self) }
}

struct CommandResult {
    let status: Int32
    let output: [UInt8]
    let error: String
    var text: String { String(decoding: output, as: UTF8.self) }
}

/// Runs the `openssl` command line tool: the independent implementation our results are checked against.
/// `ChildProcess` waits on threads of its own, so that neither the cooperative pool nor Dispatch's shared
/// queues are held up (other suites' live servers and timers need them while these tests run).
@discardableResult
func openssl(_ arguments: [String], input: [UInt8]? = nil, in directory: TemporaryDirectory? = nil) async throws -> CommandResult {
    let result = try await ChildProcess.run("/usr/bin/openssl", arguments, workingDirectory: directory?.path, input: input)
    return CommandResult(status: result.status, output: result.output, error: String(decoding: result.error, as: UTF8.self))
}

/// Runs `openssl` and requires success.
@discardableResult
func opensslOK(_ arguments: [String], input: [UInt8]? = nil, in directory: TemporaryDirectory? = nil,
               sourceLocation: SourceLocation = #_sourceLocation) async throws -> CommandResult {
    let result = try await openssl(arguments, input: input, in: directory)
    try #require(result.status == 0, "openssl \(arguments.joined(separator: " ")) failed: \(result.error)",
                 sourceLocation: sourceLocation)
    return result
}

/// A P-256 key in APNs `.p8` form made the way pushy's generate-certs.sh does.
func opensslP8() async throws -> String {
    let traditional = try await opensslOK(["ecparam", "-name", "prime256v1", "-genkey", "-noout"])
    return try await opensslOK(["pkcs8", "-topk8", "-nocrypt"], input: traditional.output).text
}

let fixedNow = Date(timeIntervalSince1970: 1_780_000_000)
