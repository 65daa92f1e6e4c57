import Foundation
import Testing
import HeraldHTTP
import HeraldSimulator
@testable import HeraldServer
import HeraldTestSupport

/// LeanCloud's own Python SDK (PyPI `leancloud`, pinned in scripts/python-clients.sh) against `herald serve`'s stack
/// on a real socket, delivering to the built-in APNs simulator: the SDK signs with X-LC-Sign, saves and updates
/// `_Installation`, queries it, pushes to a channel and with a `where` query, and reads the `_Notification` record.
/// `make test` points `HERALD_LEANCLOUD_PYTHON` at the venv; a bare `swift test` skips it
/// (`HERALD_LEANCLOUD_PYTHON=$(scripts/python-clients.sh) swift test --filter LeanCloudSDK`).
@Suite struct LeanCloudSDKTests {
    static let python = ProcessInfo.processInfo.environment["HERALD_LEANCLOUD_PYTHON"]

    /// Written as a LeanCloud user writes it; only LEANCLOUD_API_SERVER points at Herald.
    static let script = #"""
    import json, os, sys, time
    base, app_id, app_key, master_key, token_a, token_b = sys.argv[1:7]
    os.environ["LEANCLOUD_API_SERVER"] = base
    import leancloud
    from leancloud import LeanCloudError

    out = {}
    Installation = leancloud.Object.extend("Installation")

    # The app's side: the App Key (X-LC-Sign without master).
    leancloud.init(app_id, app_key=app_key)
    a = Installation()
    a.set("deviceType", "ios"); a.set("deviceToken", token_a); a.set("channels", ["news"]); a.set("timeZone", "Asia/Shanghai")
    a.save()
    b = Installation()
    b.set("deviceType", "ios"); b.set("deviceToken", token_b); b.set("channels", ["sports"]); b.set("plan", "gold")
    b.save()
    out["a"], out["b"] = a.id, b.id
    out["a_created"] = a.created_at.isoformat()
    a.add_unique("channels", "weather"); a.increment("badge", 2)
    a.save()
    try:
        leancloud.Query(Installation).find()
        out["client_query"] = "allowed"
    except LeanCloudError as e:
        out["client_query"] = e.code
    try:
        Installation().set("deviceType", "ios").set("deviceToken", "nothex").save()
    except LeanCloudError as e:
        out["bad_token"] = e.code

    # The backend's side: the Master Key (X-LC-Sign with ,master).
    leancloud.init(app_id, master_key=master_key)
    q = leancloud.Query(Installation); q.equal_to("channels", "news")
    out["news"] = [o.id for o in q.find()]
    fetched = Installation.create_without_data(a.id); fetched.fetch()
    out["a_channels"], out["a_badge"] = fetched.get("channels"), fetched.get("badge")
    q = leancloud.Query(Installation); q.contained_in("plan", ["gold", "silver"])
    out["gold_count"] = q.count()

    n1 = leancloud.push.send({"alert": "channel push", "badge": "Increment"}, channels=["news"])
    gold = leancloud.Query(Installation); gold.equal_to("plan", "gold")
    n2 = leancloud.push.send({"alert": {"title": "where", "body": "push"}, "sound": "default", "ref": 7}, where=gold)
    for name, n in (("n1", n1), ("n2", n2)):
        for _ in range(300):
            n.fetch()
            if n.get("status") == "done":
                break
            time.sleep(0.1)
        out[name] = {"id": n.id, "status": n.get("status"), "devices": n.get("devices"), "successes": n.get("successes")}
    print(json.dumps(out))
    """#

    @Test(.enabled(if: python != nil, "set HERALD_LEANCLOUD_PYTHON to a Python with leancloud (scripts/python-clients.sh)"))
    func leanCloudPythonSDKSavesQueriesPushesAndReadsTheRecord() async throws {
        let e2e = EndToEndTests()
        let (server, api) = try await e2e.start()
        let sim = try #require(server.simulator)
        let appID = try #require(server.bootstrap.appID), master = try #require(server.bootstrap.masterKey)
        let (lcID, appKey, masterKey) = ("sdkTestApp-gzGzoHsz", "sdk-app-key-0123456789", "sdk-master-key-0123456789")
        let put = try await api.call("PUT", "/v1/apps/\(appID)/leancloud", key: master, ["appId": lcID, "appKey": appKey, "masterKey": masterKey])
        #expect(put.0 == 200)

        let phoneA = sim.createDevice(name: "news reader"), phoneB = sim.createDevice(name: "gold plan")
        let tokenA = try sim.install(bundleID: "com.example.herald", environment: .production, on: phoneA.id).token
        let tokenB = try sim.install(bundleID: "com.example.herald", environment: .production, on: phoneB.id).token

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-lcsdk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("leancloud_sdk.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        let (status, output, errors) = try await ChildProcess.run(try #require(Self.python), [
            script.path, "http://127.0.0.1:\(server.port)", lcID, appKey, masterKey, tokenA, tokenB,
        ])
        let printed = String(decoding: output, as: UTF8.self)
        let stderr = String(decoding: errors, as: UTF8.self)
        #expect(status == 0, "the SDK script failed: \(stderr)")
        let out = try JSON(parsing: Array((printed.split(separator: "\n").last.map(String.init) ?? "").utf8))

        let a = try #require(out["a"]?.stringValue), b = try #require(out["b"]?.stringValue)
        #expect(a != b && out["a_created"]?.stringValue?.isEmpty == false)
        #expect(out["client_query"] == 119, "the App Key cannot query installations: \(printed)")
        #expect(out["bad_token"] == 114)
        #expect(out["news"] == .array([.string(a)]))
        #expect(Set(out["a_channels"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ["news", "weather"] && out["a_badge"] == 2, "\(printed)")
        #expect(out["gold_count"] == 1)
        for name in ["n1", "n2"] {
            #expect(out[name]?["status"] == "done" && out[name]?["devices"] == 1 && out[name]?["successes"] == 1, "\(name): \(printed)")
        }

        // Each push reached its simulated device, and only that one.
        #expect(try await e2e.waitFor { sim.device(phoneA.id)?.inbox.count == 1 && sim.device(phoneB.id)?.inbox.count == 1 })
        let first = try JSON(parsing: try #require(sim.device(phoneA.id)?.inbox.first).payload)
        #expect(first["aps"]?["alert"] == "channel push" && first["aps"]?["badge"] == 3, "Increment counts from the saved badge of 2: \(first.encoded)")
        let second = try JSON(parsing: try #require(sim.device(phoneB.id)?.inbox.first).payload)
        #expect(second["aps"]?["alert"] == ["title": "where", "body": "push"] && second["aps"]?["sound"] == "default" && second["ref"] == 7)
        await server.stop()
    }
}
