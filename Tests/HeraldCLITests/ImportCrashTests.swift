import Foundation
import Synchronization
import Testing
import HeraldHTTP

/// An import answered 200 is stored: a real `herald serve` takes import requests one after another (each
/// larger than one stored batch, so each commits in two transactions while the next batch is parsed), is
/// killed with SIGKILL while one is going up, and started again on the same data directory; every line of
/// every answered request is there, once.
@Suite(.serialized) struct ImportCrashTests {
    typealias Crash = CrashRecoveryTests

    /// Lines per request: more than a batch of the server's SQLite store (`SQLiteStore.importBatchSize`, 5,000).
    static let linesPerRequest = 6_000

    static func token(_ i: Int) -> String { String(format: "%064x", 0x1000000 + i) }

    @Test func everyLineOfAnAnsweredImportIsStoredAfterAKill() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Crash.binary), "build first: swift build (make test does)")
        var server = try await Crash.AppServer("import")
        defer { server.remove() }
        let masterKey = try #require(server.keys["master"])
        let master = server.api("master")

        // Requests go up one after another until the server dies; `answered` counts the requests answered 200.
        let answered = Atomic<Int>(0)
        let importer = Task {
            for request in 0..<1_000 {
                let lines = (0..<Self.linesPerRequest).map { i in
                    #"{"deviceToken":"\#(Self.token(request * Self.linesPerRequest + i))","environment":"sandbox","tags":["crash"]}"#
                }
                guard let (status, _) = try? await master.call("POST", "/v1/installations/import?format=jsonl",
                                                               body: Array(lines.joined(separator: "\n").utf8)),
                      status == 200 else { return }
                answered.add(1, ordering: .relaxed)
            }
        }
        #expect(try await Crash.waitUntil(seconds: 240) { answered.load(ordering: .relaxed) >= 2 })
        await server.serve.kill9()
        await importer.value
        let acknowledged = answered.load(ordering: .relaxed) * Self.linesPerRequest

        try server.start()
        defer { server.serve.stop() }
        #expect(try await Crash.waitUntil(seconds: 60) { try await master.call("GET", "/healthz").0 == 200 })
        var headers: HTTPHeaders = [:]
        headers.add("authorization", "Bearer \(masterKey)")
        let exported = try await master.client.send(HTTPRequest(method: "GET", target: "/v1/installations/export?format=jsonl",
                                                                headers: headers, body: []))
        #expect(exported.status == 200)
        var tokens: [String] = []
        for line in exported.body.split(separator: UInt8(ascii: "\n")) {
            let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            tokens.append(object?["deviceToken"] as? String ?? "")
        }
        let stored = Set(tokens)
        #expect(stored.count == tokens.count, "no line stored twice")
        let missing = (0..<acknowledged).filter { !stored.contains(Self.token($0)) }
        #expect(missing.isEmpty, "\(missing.count) of \(acknowledged) answered lines lost, e.g. line \(missing.first ?? -1)")
        // A request cut off by the kill may have committed its first batch, never more than it sent.
        #expect(tokens.count < acknowledged + Self.linesPerRequest)
    }
}
