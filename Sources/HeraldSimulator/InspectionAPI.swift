import Foundation
import HeraldJSON
import HeraldCrypto
import HeraldHTTP

/// The inspection API and device channel (HTTP/1.1, JSON): what `herald device`, tests and people use to
/// manage simulated devices and look at what arrived. Routes are listed in docs/simulator.md.
struct InspectionAPI: Sendable {
    let simulator: Simulator

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        do {
            return try route(request)
        } catch let error as SimulatorError {
            let status: Int = switch error {
            case .unknownDevice, .unknownApp, .unknownSigningKey: 404
            case .dataDirectory: 500
            default: 400
            }
            return Self.error(status, code: error.code, message: error.description, field: error.field)
        } catch {
            return Self.error(500, code: "internal", message: "\(error)")
        }
    }

    private func route(_ request: HTTPRequest) throws -> HTTPResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        let match = { (method: String, pattern: String) in Self.match(method, pattern, request.method, parts) }
        if match("GET", "health") != nil {
            let persistence = simulator.store.map { store in store.lastError.withLock { $0 } ?? "ok" } ?? "memory"
            return Self.json(["status": "ok", "mode": .string(simulator.configuration.mode.rawValue), "persistence": .string(persistence)])
        }
        if match("GET", "stats") != nil {
            return Self.json(InspectionJSON.statistics(simulator.statistics))
        }
        if match("POST", "reset") != nil {
            simulator.reset()
            return Self.json(["reset": true])
        }

        if match("GET", "devices") != nil {
            return Self.json(["devices": .array(simulator.devices.map { InspectionJSON.device($0, detailed: false) })])
        }
        if match("POST", "devices") != nil {
            let body = try Self.object(request, allowEmpty: true)
            let device = simulator.createDevice(name: body["name"] as? String, online: (body["online"] as? Bool) ?? true)
            return Self.json(InspectionJSON.device(device, detailed: false), status: 201)
        }
        if let p = match("GET", "devices/:id") {
            let id = p[0]
            return Self.json(InspectionJSON.device(try existing(id), detailed: true))
        }
        if let p = match("DELETE", "devices/:id") {
            let id = p[0]
            try simulator.removeDevice(id)
            return HTTPResponse(status: 204)
        }
        if let p = match("POST", "devices/:id/apps") {
            let id = p[0]
            let body = try Self.object(request)
            let bundleID = try Self.string(body, "bundleId")
            let environment = try Self.environment(body["environment"] ?? "sandbox")
            return Self.json(InspectionJSON.app(try simulator.install(bundleID: bundleID, environment: environment, on: id)), status: 201)
        }
        if let p = match("DELETE", "devices/:id/apps/:bundleID") {
            let id = p[0], bundleID = p[1]
            return Self.json(InspectionJSON.app(try simulator.uninstall(bundleID: bundleID, from: id)))
        }
        if let p = match("POST", "devices/:id/online") ?? match("POST", "devices/:id/offline") {
            let id = p[0]
            let delivered = try simulator.setOnline(parts[2] == "online", deviceID: id)
            return Self.json(["online": .bool(parts[2] == "online"), "delivered": .array(delivered.map(InspectionJSON.notification))])
        }
        if let p = match("GET", "devices/:id/notifications") {
            let id = p[0]
            var list = try existing(id).inbox
            if let since = request.queryValue("sinceMs").flatMap(Int64.init) {
                list = list.filter { InspectionJSON.millis($0.deliveredAt ?? $0.receivedAt) > since }
            }
            return Self.json(["notifications": .array(list.map(InspectionJSON.notification))])
        }
        if let p = match("GET", "devices/:id/stream") {
            let id = p[0]
            let stream = try simulator.deviceStream(deviceID: id, presence: request.queryValue("presence") != "0")
            return HTTPResponse(status: 200, headers: ["content-type": "text/event-stream", "cache-control": "no-cache"], stream: stream)
        }
        if let p = match("POST", "devices/:id/opened") {
            let id = p[0]
            let body = try Self.object(request)
            return Self.json(InspectionJSON.open(try simulator.reportOpened(deviceID: id, apnsID: try Self.string(body, "apnsId"))), status: 201)
        }
        if let p = match("POST", "devices/:id/apns-file") {
            let id = p[0]
            let delivered = try simulator.deliverAPNSFile(request.body, deviceID: id)
            return Self.json(["delivered": .array(delivered.map(InspectionJSON.notification))])
        }
        if match("POST", "apns-file") != nil {
            let delivered = try simulator.deliverAPNSFile(request.body)
            return Self.json(["delivered": .array(delivered.map(InspectionJSON.notification))])
        }

        if let p = match("GET", "tokens/:token") {
            let token = p[0]
            guard let record = simulator.state.token(token.lowercased()) else {
                return Self.error(404, code: "not_found", message: "no token \(token) was issued by this simulator")
            }
            return Self.json([
                "token": .string(token.lowercased()), "deviceId": .string(record.deviceID), "bundleId": .string(record.bundleID),
                "environment": .string(record.environment.rawValue), "uninstalledAt": InspectionJSON.time(record.uninstalledAt),
            ])
        }

        if match("GET", "faults") != nil {
            return Self.jsonEncodable(simulator.faults)
        }
        if match("PUT", "faults") != nil {
            let faults: FaultConfiguration
            do { faults = try JSONDecoder().decode(FaultConfiguration.self, from: Data(request.body)) } catch {
                throw SimulatorError.invalidRequest(field: "faults", message: "not a fault configuration (\(error))")
            }
            try simulator.setFaults(faults)
            return Self.jsonEncodable(simulator.faults)
        }

        if match("GET", "keys") != nil {
            return Self.json(["keys": .array(simulator.signingKeys.map { k -> JSONValue in
                ["keyId": .string(k.keyID), "teamId": .string(k.teamID), "publicKeyPem": .string(k.publicKey.pem),
                 "bundleIds": k.bundleIDs.map { .array($0.map(JSONValue.string)) } ?? .null,
                 "environment": InspectionJSON.string(k.environment?.rawValue)]
            })])
        }
        if match("POST", "keys") != nil {
            let body = try Self.object(request)
            let record = SigningKey.Record(
                keyID: try Self.string(body, "keyId"), teamID: try Self.string(body, "teamId"),
                publicKeyPEM: try Self.string(body, "publicKeyPem"), bundleIDs: body["bundleIds"] as? [String],
                environment: try body["environment"].map(Self.environment))
            try simulator.registerSigningKey(try SigningKey(record: record))
            return Self.json(["keyId": .string(record.keyID)], status: 201)
        }
        if match("POST", "keys/generate") != nil {
            let body = try Self.object(request, allowEmpty: true)
            let generated = try simulator.generateSigningKey(
                keyID: body["keyId"] as? String, teamID: (body["teamId"] as? String) ?? "SIMTEAM001",
                bundleIDs: body["bundleIds"] as? [String], environment: try body["environment"].map(Self.environment))
            return Self.json(["keyId": .string(generated.keyID), "teamId": .string(generated.teamID), "privateKeyPem": .string(generated.privateKeyPEM),
                              "file": InspectionJSON.string(generated.file?.path)], status: 201)
        }
        if let p = match("DELETE", "keys/:keyID") {
            let keyID = p[0]
            try simulator.removeSigningKey(keyID: keyID)
            return HTTPResponse(status: 204)
        }

        if match("GET", "ca.pem") != nil {
            return HTTPResponse(status: 200, headers: ["content-type": "application/x-pem-file"],
                                body: Array(try simulator.certificateAuthority().certificate.pem.utf8))
        }
        if match("POST", "certificates") != nil {
            let body = try Self.object(request)
            let bundleID = try Self.string(body, "bundleId")
            let names = (body["environments"] as? [String]) ?? ["sandbox"]
            let environments = Set(try names.map(Self.environment))
            let identity = try simulator.issueClientCertificate(bundleID: bundleID, teamID: (body["teamId"] as? String) ?? "SIMTEAM001",
                                                                environments: environments)
            let passphrase = (body["p12Passphrase"] as? String) ?? "herald"
            return Self.json([
                "certificatePem": .string(identity.certificate.pem), "privateKeyPem": .string(try identity.privateKey.pkcs8PEM()),
                "p12Base64": .string(Data(try PKCS12.make(identity, passphrase: passphrase, friendlyName: bundleID)).base64EncodedString()),
                "p12Passphrase": .string(passphrase),
            ], status: 201)
        }

        do {
            let known = ["health", "stats", "reset", "devices", "apns-file", "tokens", "faults", "keys", "ca.pem", "certificates"]
            if let first = parts.first, known.contains(first) {
                return Self.error(405, code: "method_not_allowed", message: "\(request.method) is not supported on \(request.path)")
            }
            return Self.error(404, code: "not_found", message: "no route \(request.method) \(request.path); see docs/simulator.md")
        }
    }

    private func existing(_ id: String) throws -> Device {
        guard let device = simulator.device(id) else { throw SimulatorError.unknownDevice(id) }
        return device
    }

    // MARK: helpers

    /// Matches `pattern` (segments, `:name` captures one) against the request; returns the captures.
    static func match(_ method: String, _ pattern: String, _ requestMethod: String, _ parts: [String]) -> [String]? {
        guard method == requestMethod else { return nil }
        let segments = pattern.split(separator: "/")
        guard segments.count == parts.count else { return nil }
        var captures: [String] = []
        for (segment, part) in zip(segments, parts) {
            if segment.hasPrefix(":") { captures.append(part.removingPercentEncoding ?? part) } else if segment != part { return nil }
        }
        return captures
    }

    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["content-type": "application/json"], body: InspectionJSON.bytes(value))
    }

    static func jsonEncodable(_ value: some Encodable) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array((try? encoder.encode(value)) ?? Data()))
    }

    static func error(_ status: Int, code: String, message: String, field: String? = nil) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["content-type": "application/json"], body: InspectionJSON.error(code: code, message: message, field: field))
    }

    static func object(_ request: HTTPRequest, allowEmpty: Bool = false) throws -> [String: Any] {
        if request.body.isEmpty, allowEmpty { return [:] }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] else {
            throw SimulatorError.invalidRequest(field: "body", message: "send a JSON object")
        }
        return object
    }

    static func string(_ body: [String: Any], _ key: String) throws -> String {
        guard let value = body[key] as? String, !value.isEmpty else {
            throw SimulatorError.invalidRequest(field: key, message: "required string is missing")
        }
        return value
    }

    static func environment(_ value: Any) throws -> PushEnvironment {
        guard let text = value as? String, let env = PushEnvironment(rawValue: text) else {
            throw SimulatorError.invalidRequest(field: "environment", message: "use \"sandbox\" or \"production\"")
        }
        return env
    }
}

extension Simulator {
    /// The inspection API and device channel, for the transport's HTTP/1.1 server.
    public var inspectionHandler: HTTPHandler {
        let api = InspectionAPI(simulator: self)
        return { request in api.handle(request) }
    }
}
