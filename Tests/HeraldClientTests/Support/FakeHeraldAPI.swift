import Foundation
@testable import HeraldClient

/// The installation part of Herald's REST API, in memory, behind a ``TestHTTPServer``: it answers like
/// the real server does (create-or-update, PATCH, tags add/remove, DELETE, opens) so the client is
/// exercised over real HTTP without waiting for the real server.
final class FakeHeraldAPI: @unchecked Sendable {
    // @unchecked: `installations` is guarded by `lock`.
    private let lock = NSLock()
    private var installations: [String: [String: Any]] = [:]
    let clientKey: String

    init(clientKey: String = "ck_test") {
        self.clientKey = clientKey
    }

    func installation(_ id: String) -> [String: Any]? {
        lock.lock()
        defer { lock.unlock() }
        return installations[id]
    }

    /// Forgets an installation, as if it had been deleted on the server.
    func forget(_ id: String) {
        lock.lock()
        installations[id] = nil
        lock.unlock()
    }

    func handle(_ request: TestHTTPServer.Request) -> TestHTTPServer.Reply {
        guard request.headers["authorization"] == "Bearer \(clientKey)" else {
            return .json(401, #"{"error":{"code":"unauthorized","message":"unknown client key"}}"#)
        }
        let body = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] ?? [:]
        let parts = request.path.split(separator: "/").map(String.init)
        lock.lock()
        defer { lock.unlock() }
        switch (request.method, parts.count) {
        case ("POST", 2) where parts[1] == "installations":
            guard let id = body["installationId"] as? String else {
                return .json(400, #"{"error":{"code":"invalid","message":"installationId is required","field":"installationId"}}"#)
            }
            let existed = installations[id] != nil
            var stored = installations[id] ?? ["id": "srv-\(id.prefix(8))", "createdAt": "2026-11-30T01:00:00Z"]
            stored.merge(body) { $1 }
            stored["active"] = true
            stored["updatedAt"] = "2026-11-30T01:00:00.123Z"
            installations[id] = stored
            return .json(existed ? 200 : 201, Self.text(stored))
        case ("PATCH", 3):
            guard var stored = installations[parts[2]] else { return notFound }
            for (key, value) in body {
                if value is NSNull { stored[key] = nil } else { stored[key] = value }
            }
            installations[parts[2]] = stored
            return .json(200, Self.text(stored))
        case ("DELETE", 3):
            guard installations.removeValue(forKey: parts[2]) != nil else { return notFound }
            return .respond(status: 204)
        case ("POST", 4) where parts[3] == "tags":
            guard var stored = installations[parts[2]] else { return notFound }
            var tags = Set(stored["tags"] as? [String] ?? [])
            tags.formUnion(body["add"] as? [String] ?? [])
            tags.subtract(body["remove"] as? [String] ?? [])
            stored["tags"] = tags.sorted()
            installations[parts[2]] = stored
            return .json(200, Self.text(stored))
        case ("POST", 2) where parts[1] == "opens":
            return .respond(status: 202)
        default:
            return notFound
        }
    }

    private var notFound: TestHTTPServer.Reply {
        .json(404, #"{"error":{"code":"not_found","message":"no such installation"}}"#)
    }

    private static func text(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
