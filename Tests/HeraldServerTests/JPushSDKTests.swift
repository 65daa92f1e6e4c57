import Foundation
import Testing
import HeraldHTTP
import HeraldSimulator
@testable import HeraldServer
import HeraldProvider
import HeraldTestSupport

/// JPush's official Python server SDK (PyPI `jpush`, pinned in scripts/python-clients.sh), unchanged but for
/// its hosts, against `herald serve`'s stack on a real socket delivering to the built-in simulator: the
/// device, tag and alias calls, validate, pushes to a tag, an alias, a registration id and everyone, the
/// received report, a schedule, and JPush's errors as the SDK raises them. Every push must reach a device.
/// `make test` points `HERALD_JPUSH_PYTHON` at the virtual environment; a bare `swift test` skips this
/// (`HERALD_JPUSH_PYTHON=$(scripts/python-clients.sh) swift test --filter JPushSDKTests`).
@Suite struct JPushSDKTests {
    static let python = ProcessInfo.processInfo.environment["HERALD_JPUSH_PYTHON"]
    static let appKey = "4f1c2b3a5d6e7f8091a2b3c4", masterSecret = "9e8d7c6b5a4f3e2d1c0b9a88"

    /// The SDK's own calls; only `common.ZONES` (its hosts) is changed. Prints one JSON object of results.
    static let script = #"""
    import json, sys, time, datetime
    import jpush
    from jpush import common

    base, app_key, secret, rid1, rid2 = sys.argv[1:6]
    common.ZONES['DEFAULT'] = {
        'PUSH': base + '/v3/', 'REPORT': base + '/v3/', 'DEVICE': base + '/v3/devices/',
        'ALIAS': base + '/v3/aliases/', 'TAG': base + '/v3/tags/', 'SCHEDULE': base + '/v3/schedules/', 'ADMIN': base + '/v1/',
    }
    client = jpush.JPush(app_key, secret)
    out = {}

    device = client.create_device()
    device.set_deviceinfo(rid1, {'tags': jpush.add('news'), 'alias': 'alice'})
    out['device'] = device.get_deviceinfo(rid1).payload
    device.update_tagusers('sports', {'registration_ids': jpush.add(rid2)})
    out['tagged'] = device.check_taguserexist('sports', rid2).payload
    out['tags'] = device.get_taglist().payload
    out['alias'] = device.get_aliasuser('alice').payload

    def push(audience, text, validate=False):
        p = client.create_push()
        p.audience = audience
        p.notification = jpush.notification(alert=text, ios=jpush.ios(alert=text, sound='default', extras={'text': text}))
        p.platform = jpush.all_
        p.options = {'sendno': 7}
        response = p.send_validate() if validate else p.send()
        return response.payload

    out['validate'] = push(jpush.audience(jpush.tag('news')), 'validate', validate=True)
    msg_ids = {}
    msg_ids['tag'] = push(jpush.audience(jpush.tag('news')), 'to tag')['msg_id']
    msg_ids['alias'] = push(jpush.audience(jpush.alias('alice')), 'to alias')['msg_id']
    msg_ids['registration_id'] = push(jpush.audience(jpush.registration_id(rid2)), 'to registration id')['msg_id']
    msg_ids['all'] = push(jpush.all_, 'to all')['msg_id']
    out['msg_ids'] = msg_ids
    out['msg_ids_are_ints'] = all(str(int(v)) == v for v in msg_ids.values())

    try:
        push(jpush.audience(jpush.tag('nobody')), 'nobody')
        out['no_target'] = 'accepted'
    except jpush.JPushFailure as e:
        out['no_target'] = {'code': e.error_code, 'status': e.response.status_code}
    try:
        jpush.JPush(app_key, 'wrong').create_device().get_taglist()
        out['wrong_secret'] = 'accepted'
    except jpush.Unauthorized:
        out['wrong_secret'] = 'unauthorized'

    # The received report, polled until every push was sent to APNs (here the simulator).
    report = client.create_report()
    ids = ','.join(msg_ids.values())
    deadline = time.time() + 30
    while True:
        received = report.get_received(ids).payload
        if all(r['ios_apns_sent'] for r in received) and len(received) == 4 or time.time() > deadline:
            break
        time.sleep(0.2)
    out['received'] = received

    schedule = client.create_schedule()
    beijing = datetime.datetime.now(datetime.timezone(datetime.timedelta(hours=8))) + datetime.timedelta(hours=1)
    p = client.create_push()
    p.audience = jpush.all_
    p.notification = jpush.notification(alert='later')
    p.platform = jpush.all_
    trigger = jpush.schedulepayload.trigger(beijing.strftime('%Y-%m-%d %H:%M:%S'))
    created = schedule.post_schedule(jpush.schedulepayload.schedulepayload('in an hour', True, trigger, p.payload)).payload
    out['schedule'] = schedule.get_schedule_by_id(created['schedule_id']).payload
    out['schedules'] = schedule.get_schedule_list(1).payload['total_count']
    out['schedule_deleted'] = schedule.delete_schedule(created['schedule_id']).payload
    print(json.dumps(out))
    """#

    @Test(.enabled(if: python != nil, "set HERALD_JPUSH_PYTHON to a Python with the jpush package"))
    func theJPushPythonSDKPushesThroughHerald() async throws {
        var settings = ProviderServer.Settings()
        settings.port = 0
        settings.simulatorInspectionPort = nil
        settings.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-jpush-\(UUID().uuidString)").path
        settings.service.databasePath = settings.dataDirectory + "/herald.sqlite"
        settings.service.pollInterval = 0.05
        let server = try await ProviderServer.start(settings, log: { _, _ in })
        // The server stops (its sockets and threads) whether or not the checks pass.
        do { try await exercise(server, dataDirectory: settings.dataDirectory) } catch { await server.stop(); throw error }
        await server.stop()
    }

    func exercise(_ server: ProviderServer, dataDirectory: String) async throws {
        let sim = try #require(server.simulator)
        let boot = server.bootstrap
        let appID = try #require(boot.appID), clientKey = try #require(boot.clientKey), masterKey = try #require(boot.masterKey)
        let http = HTTP1Client(host: "127.0.0.1", port: server.port)
        func call(_ method: String, _ path: String, key: String, _ body: JSON) async throws -> Int {
            try await http.send(HTTPRequest(method: method, target: path, headers: ["authorization": "Bearer \(key)", "content-type": "application/json"],
                                            body: body.bytes)).status
        }
        #expect(try await call("PUT", "/v1/apps/\(appID)/jpush", key: masterKey, ["appKey": .string(Self.appKey), "masterSecret": .string(Self.masterSecret)]) == 200)
        // Two phones running the app with HeraldClient: each registers under its registrationID (the installation id).
        var phones: [(device: String, registrationID: String)] = []
        for n in 1...2 {
            let phone = sim.createDevice(name: "phone \(n)")
            let app = try sim.install(bundleID: "com.example.herald", environment: .sandbox, on: phone.id)
            let registrationID = "phone-\(n)-\(UUID().uuidString.lowercased())"
            #expect(try await call("POST", "/v1/installations", key: clientKey,
                                   ["installationId": .string(registrationID), "deviceToken": .string(app.token), "environment": "sandbox"]) == 201)
            phones.append((phone.id, registrationID))
        }

        let script = URL(fileURLWithPath: dataDirectory).appendingPathComponent("jpush_sdk.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        let (status, printed, errors) = try await ChildProcess.run(try #require(Self.python), [
            script.path, "http://127.0.0.1:\(server.port)", Self.appKey, Self.masterSecret, phones[0].registrationID, phones[1].registrationID,
        ])
        let stderr = String(decoding: errors, as: UTF8.self)
        #expect(status == 0, "the SDK failed: \(stderr)")
        let out = try JSON(parsing: Array(printed))

        #expect(out["device"] == ["tags": ["news"], "alias": "alice", "mobile": nil])
        #expect(out["tagged"] == ["result": true])
        #expect(out["tags"] == ["tags": ["news", "sports"]])
        #expect(out["alias"] == ["registration_ids": [.string(phones[0].registrationID)]])
        #expect(out["validate"]?["sendno"] == "7")
        #expect(out["msg_ids_are_ints"] == true)
        #expect(out["no_target"] == ["code": 1011, "status": 400])
        #expect(out["wrong_secret"] == "unauthorized")
        let msgIDs = try #require(out["msg_ids"]?.objectValue).compactMapValues(\.stringValue)
        #expect(msgIDs.count == 4)
        let received = out["received"]?.arrayValue ?? []
        #expect(received.count == 4 && received.allSatisfy { $0["ios_apns_sent"]?.intValue ?? 0 >= 1 }, "\(received)")
        #expect(received.first { $0["msg_id"]?.intValue.map(String.init) == msgIDs["all"] }?["ios_apns_sent"] == 2)
        #expect(out["schedule"]?["name"] == "in an hour" && out["schedule"]?["enabled"] == true)
        #expect(out["schedules"] == 1)
        #expect(out["schedule_deleted"] == "success")

        // Each push reached the phones it named, with the SDK's extras beside aps.
        func delivered(_ phone: String) -> [String: String] {
            var byMsgID: [String: String] = [:]
            for n in sim.device(phone)?.inbox ?? [] {
                guard let p = try? JSON(parsing: n.payload), let id = p["_j_msgid"]?.intValue, let text = p["text"]?.stringValue else { continue }
                byMsgID[String(id)] = text
            }
            return byMsgID
        }
        let first = delivered(phones[0].device), second = delivered(phones[1].device)
        #expect(Set(first.keys) == Set([msgIDs["tag"], msgIDs["alias"], msgIDs["all"]].compactMap { $0 }), "\(first)")
        #expect(Set(second.keys) == Set([msgIDs["registration_id"], msgIDs["all"]].compactMap { $0 }), "\(second)")
        #expect(first[msgIDs["alias"] ?? ""] == "to alias" && second[msgIDs["registration_id"] ?? ""] == "to registration id")
    }
}
