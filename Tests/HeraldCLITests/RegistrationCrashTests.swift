import Foundation
import Synchronization
import Testing
import HeraldHTTP

/// Group commit must not weaken durability: a real `herald serve` takes registrations from many connections
/// at once (so they share transactions), is killed with SIGKILL in the middle of the burst and started again
/// on the same data directory; every registration it had answered 2xx is there, with its tags and badge.
@Suite(.serialized) struct RegistrationCrashTests {
    typealias Crash = CrashRecoveryTests

    /// The registrations the server answered 2xx, by installation id, with the badge each one sent.
    final class Acknowledged: Sendable {
        let badges = Mutex<[String: Int]>([:])
        var count: Int { badges.withLock { $0.count } }
    }

    @Test func everyRegistrationAnsweredBeforeAKillIsStoredAfterTheRestart() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Crash.binary), "build first: swift build (make test does)")
        var server = try await Crash.AppServer("registration")
        defer { server.remove() }

        // 8 connections register new installations as fast as the server answers, until it dies (enough for
        // writes to meet in one group; more only loads the rest of a parallel suite run).
        let acknowledged = Acknowledged()
        let (port, clientKey) = (server.port, server.keys["client"])
        let writers = (0..<8).map { writer in
            Task {
                let api = Crash.API(client: HTTP1Client(host: "127.0.0.1", port: port), key: clientKey)
                for i in 0..<100_000 {
                    let iid = "crash-\(writer)-\(i)"
                    let token = String(format: "%064x", writer * 1_000_000 + i)
                    guard let (status, _) = try? await api.call("POST", "/v1/installations", [
                        "installationId": iid, "deviceToken": token, "environment": "sandbox", "badge": i % 50,
                        "tags": ["crash", "w\(writer)"],
                    ]) else { return }
                    guard (200..<300).contains(status) else { return }
                    acknowledged.badges.withLock { $0[iid] = i % 50 }
                }
            }
        }
        #expect(try await Crash.waitUntil(seconds: 120) { acknowledged.count >= 600 })
        await server.serve.kill9()
        for writer in writers { await writer.value }
        let answered = acknowledged.badges.withLock { $0 }

        try server.start()
        defer { server.serve.stop() }
        let master = server.api("master")
        #expect(try await Crash.waitUntil(seconds: 60) { try await master.call("GET", "/healthz").0 == 200 })
        var missing: [String] = []
        for (iid, badge) in answered {
            let (status, body) = try await master.call("GET", "/v1/installations/\(iid)")
            let record = body as? [String: Any]
            guard status == 200, record?["badge"] as? Int == badge,
                  Set(record?["tags"] as? [String] ?? []) == ["crash", "w\(iid.split(separator: "-")[1])"] else {
                missing.append(iid)
                continue
            }
        }
        #expect(missing.isEmpty, "\(missing.count) of \(answered.count) answered registrations lost, e.g. \(missing.prefix(5))")
    }
}
