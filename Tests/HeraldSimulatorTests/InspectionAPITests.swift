import Foundation
import HeraldCrypto
import HeraldHTTP
import HeraldJSON
import Testing
@testable import HeraldSimulator

@Suite("Inspection API and device channel")
struct InspectionAPITests {
    let f: Fixture
    let api: HTTPHandler

    init() throws {
        f = try Fixture()
        api = f.simulator.inspectionHandler
    }

    func call(_ method: String, _ target: String, _ body: String = "") async -> HTTPResponse {
        await api(HTTPRequest(method: method, target: target, body: Array(body.utf8)))
    }

    @Test func deviceLifecycleOverHTTP() async throws {
        let created = await call("POST", "/devices", #"{"name":"Ada's iPhone"}"#)
        #expect(created.status == 201)
        let id = try #require(created.json["id"] as? String)
        let installed = await call("POST", "/devices/\(id)/apps", #"{"bundleId":"com.example.news","environment":"production"}"#)
        #expect(installed.status == 201)
        let token = try #require(installed.json["token"] as? String)
        #expect(token.count == 64)
        let lookup = await call("GET", "/tokens/\(token)")
        #expect(lookup.json["deviceId"] as? String == id)
        #expect(lookup.json["environment"] as? String == "production")
        let offline = await call("POST", "/devices/\(id)/offline")
        #expect(offline.json["online"] as? Bool == false)
        let list = await call("GET", "/devices")
        let devices = try #require(list.json["devices"] as? [[String: Any]])
        #expect(devices.map { $0["name"] as? String } == ["Test iPhone", "Ada's iPhone"])
        let uninstalled = await call("DELETE", "/devices/\(id)/apps/com.example.news")
        #expect(uninstalled.json["uninstalledAt"] is String)
        #expect(await call("DELETE", "/devices/\(id)").status == 204)
        #expect(await call("GET", "/devices/\(id)").status == 404)
    }

    @Test func receivedNotificationsShowHeadersPayloadAndTime() async throws {
        _ = f.send(push(to: f.token, headers: [("apns-priority", "5")], body: #"{"aps":{"alert":"hello"},"k":1}"#))
        let response = await call("GET", "/devices/\(f.device.id)/notifications")
        let list = try #require(response.json["notifications"] as? [[String: Any]])
        #expect(list.count == 1)
        let n = list[0]
        #expect((n["headers"] as? [String: String])?["apns-priority"] == "5")
        #expect(((n["payload"] as? [String: Any])?["aps"] as? [String: Any])?["alert"] as? String == "hello")
        #expect(n["deliveredAt"] is String)
        #expect(n["priority"] as? Int == 5)
    }

    @Test func statsCountByReasonAndResetClearsThem() async throws {
        _ = f.send(push(to: f.token))
        _ = f.send(push(to: f.token, body: ""))
        let stats = await call("GET", "/stats")
        #expect(stats.json["accepted"] as? Int == 1)
        #expect((stats.json["rejected"] as? [String: Int]) == ["PayloadEmpty": 1])
        #expect(await call("POST", "/reset").status == 200)
        #expect(await call("GET", "/stats").json["accepted"] as? Int == 0)
    }

    @Test func faultsAreReadAndChangedAtRunTime() async throws {
        let put = await call("PUT", "/faults", #"{"internalServerErrorRate":1}"#)
        #expect(put.status == 200)
        #expect(put.json["internalServerErrorRate"] as? Double == 1)
        if case let .respond(r) = f.simulator.provider.handle(request: push(to: f.token), connection: f.certificateConnection(), now: f.clock.now) {
            #expect(r.status == 500)
        } else {
            Issue.record("expected a response")
        }
        let bad = await call("PUT", "/faults", #"{"delayRate":-1}"#)
        #expect(bad.status == 400)
        let error = try #require(bad.json["error"] as? [String: Any])
        #expect(error["field"] as? String == "faults.delayRate")
        #expect(await call("GET", "/faults").json["internalServerErrorRate"] as? Double == 1)
    }

    @Test func signingKeysAreRegisteredWithTheirPublicKey() async throws {
        let key = try TestKey()
        let value: JSONValue = ["keyId": .string(key.keyID), "teamId": .string(key.teamID), "publicKeyPem": .string(key.privateKey.publicKey.pem)]
        let body = String(decoding: value.jsonBytes(), as: UTF8.self)
        #expect(await call("POST", "/keys", body).status == 201)
        let connection = ConnectionAuthState(environment: .sandbox, credential: .providerToken)
        let jwt = try key.token(issuedAt: f.clock.now)
        #expect(f.send(push(to: f.token, headers: [("authorization", "bearer \(jwt)")]), on: connection).status == 200)
        let bad = await call("POST", "/keys", #"{"keyId":"ABCDEFGHIJ","teamId":"TEAM123456","publicKeyPem":"nope"}"#)
        #expect(bad.status == 400)
        #expect(await call("DELETE", "/keys/\(key.keyID)").status == 204)
    }

    @Test func certificatesComeAsPEMAndP12() async throws {
        let response = await call("POST", "/certificates", #"{"bundleId":"com.example.app","environments":["sandbox"],"p12Passphrase":"s3cret"}"#)
        #expect(response.status == 201)
        let p12 = try #require(Data(base64Encoded: response.json["p12Base64"] as? String ?? ""))
        let identity = try PKCS12.load(Array(p12), passphrase: "s3cret")
        #expect(identity.certificate.subjectUID == "com.example.app")
        let ca = await call("GET", "/ca.pem")
        #expect(identity.certificate.isSigned(by: try Certificate(pem: String(decoding: ca.body, as: UTF8.self))))
    }

    @Test func deviceStreamDeliversStoredNotificationsAndLiveOnes() async throws {
        try f.simulator.setOnline(false, deviceID: f.device.id)
        _ = f.send(push(to: f.token, body: #"{"aps":{"alert":"while away"}}"#))
        let response = await call("GET", "/devices/\(f.device.id)/stream")
        #expect(response.headers["content-type"] == "text/event-stream")
        let collector = StreamCollector(try #require(response.stream))
        defer { collector.cancel() }
        #expect(await collector.wait { $0.contains("while away") })
        #expect(f.simulator.device(f.device.id)?.online == true)
        _ = f.send(push(to: f.token, body: #"{"aps":{"alert":"live"}}"#))
        #expect(await collector.wait { $0.contains("event: notification") && $0.contains("live") })
        let id = try #require(f.inbox.last?.apnsID)
        #expect(await call("POST", "/devices/\(f.device.id)/opened", #"{"apnsId":"\#(id)"}"#).status == 201)
        #expect(await collector.wait { $0.contains("event: opened") })
        collector.cancel()
        // Ending the stream takes the device offline again (presence).
        var offline = false
        for _ in 0..<200 where !offline {
            offline = f.simulator.device(f.device.id)?.online == false
            if !offline { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(offline)
    }

    @Test func apnsFileIsDeliveredToTheDevice() async throws {
        let file = #"{"Simulator Target Bundle":"com.example.app","aps":{"alert":{"title":"From Xcode"},"badge":4}}"#
        let response = await call("POST", "/devices/\(f.device.id)/apns-file", file)
        #expect(response.status == 200)
        let received = try #require(f.inbox.last)
        #expect(received.source == .apnsFile)
        #expect(!String(decoding: received.payload, as: UTF8.self).contains("Simulator Target Bundle"))
        #expect(f.simulator.device(f.device.id)?.badges["com.example.app"] == 4)
        let missing = await call("POST", "/devices/\(f.device.id)/apns-file", #"{"aps":{}}"#)
        #expect(missing.status == 400)
        #expect(String(decoding: missing.body, as: UTF8.self).contains("Simulator Target Bundle"))
        let otherApp = await call("POST", "/devices/\(f.device.id)/apns-file", #"{"Simulator Target Bundle":"com.not.installed","aps":{}}"#)
        #expect(otherApp.status == 404)
    }

    @Test func errorsUseTheHouseJSONShape() async throws {
        let missing = await call("POST", "/devices/\(f.device.id)/apps", #"{"environment":"sandbox"}"#)
        #expect(missing.status == 400)
        let error = try #require(missing.json["error"] as? [String: Any])
        #expect(error["code"] as? String == "invalid_request")
        #expect(error["field"] as? String == "bundleId")
        #expect(await call("GET", "/nowhere").status == 404)
        #expect(await call("PATCH", "/devices").status == 405)
        #expect(await call("POST", "/devices/\(f.device.id)/apps", #"{"bundleId":"com.a","environment":"staging"}"#).status == 400)
    }
}

@Suite("Generated signing keys")
struct GeneratedKeyTests {
    @Test func generatedKeySignsTokensTheSimulatorAccepts() async throws {
        let f = try Fixture()
        let response = await f.simulator.inspectionHandler(HTTPRequest(method: "POST", target: "/keys/generate", body: Array(#"{"teamId":"TEAMABCDEF"}"#.utf8)))
        #expect(response.status == 201)
        let pem = try #require(response.json["privateKeyPem"] as? String)
        let keyID = try #require(response.json["keyId"] as? String)
        #expect(keyID.count == 10)
        let jwt = try JWT.apnsProviderToken(keyID: keyID, teamID: "TEAMABCDEF", issuedAt: Int64(f.clock.now.timeIntervalSince1970),
                                            using: try PrivateKey(pem: pem))
        let connection = ConnectionAuthState(environment: .sandbox, credential: .providerToken)
        #expect(f.send(push(to: f.token, headers: [("authorization", "bearer \(jwt)")]), on: connection).status == 200)
    }

    @Test func withADataDirectoryTheKeyIsSavedAsAP8File() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-sim-key-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        var configuration = SimulatorConfiguration()
        configuration.dataDirectory = dir
        let simulator = try Simulator(configuration: configuration)
        let generated = try simulator.generateSigningKey(keyID: "ABCDE12345")
        let file = try #require(generated.file)
        #expect(file.lastPathComponent == "AuthKey_ABCDE12345.p8")
        let loaded = try PrivateKey(pemFile: file.path)
        #expect(simulator.signingKeys.first { $0.keyID == "ABCDE12345" }?.publicKey == loaded.publicKey)
    }
}
