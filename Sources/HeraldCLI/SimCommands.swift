import Foundation
import HeraldCrypto
import HeraldSimulator

/// `herald sim`: a local APNs with simulated devices.
enum SimCommand: CommandGroup {
    static let name = "sim"
    static let abstract = "Run and drive the local APNs simulator (devices, keys, certificates, faults)."
    static let discussion = """
    Start it with `herald sim start`, then use the other subcommands (they talk to its inspection API,
    default http://127.0.0.1:8090, or --sim / HERALD_SIM_URL). Quick tour:
      herald sim start --data-dir sim-data &
      herald sim key --bundle-id com.example.app          # writes AuthKey_<id>.p8 and prints its ids
      herald device --bundle-id com.example.app           # a device that prints what arrives
      herald send --host 127.0.0.1:2197 --ca sim-data/ca.pem --key AuthKey_<id>.p8 ... --token <token> --alert hi
    """
    static var subcommands: [Command.Type] {
        [SimStartCommand.self, SimKeyCommand.self, SimCertCommand.self, SimDevicesCommand.self, SimInstallCommand.self,
         SimUninstallCommand.self, SimPresenceCommand.self, SimPushCommand.self, SimFaultsCommand.self, SimStatsCommand.self]
    }

    static let simOption = Option.value("sim", "url", "The simulator's inspection API (default http://127.0.0.1:8090, or env HERALD_SIM_URL).")

    static func api(_ args: ParsedArguments) throws -> JSONAPIClient {
        try JSONAPIClient(baseURL: args.value("sim") ?? ProcessInfo.processInfo.environment["HERALD_SIM_URL"] ?? "http://127.0.0.1:8090")
    }
}

enum SimStartCommand: Command {
    static let name = "sim start"
    static let abstract = "Start the simulator in the foreground (Ctrl-C stops it)."
    static let usage = "[--port 2197] [--production-port 2198] [--inspection-port 8090] [--data-dir dir] [options]"
    static let options: [Option] = [
        .value("host", "address", "Address to listen on (default 127.0.0.1)."),
        .value("port", "n", "Sandbox provider API port (default 2197; 0 picks one)."),
        .value("production-port", "n", "Production provider API port (default 2198; -1 turns it off)."),
        .value("inspection-port", "n", "Inspection API and device channel port (default 8090)."),
        .value("legacy-port", "n", "Legacy binary provider API port (off unless given; Apple used 2195)."),
        .value("feedback-port", "n", "Legacy feedback service port (off unless given; Apple used 2196)."),
        .value("data-dir", "dir", "Keeps devices, keys and the CA across restarts; ca.pem is written here (default herald-sim-data)."),
        .flag("accept-all", "Counting mode: answer 200 to everything, store nothing (benchmarks)."),
        .flag("h2c", "Serve cleartext HTTP/2 with prior knowledge instead of TLS."),
        .value("max-streams", "n", "SETTINGS_MAX_CONCURRENT_STREAMS after the first good token request (default 1000)."),
        .value("token-bytes", "n", "Length of issued device tokens in bytes (default 32)."),
        .value("faults", "json", "Initial fault configuration, e.g. '{\"serviceUnavailableRate\":0.1}'."),
        .value("opened-callback", "url", "POST each opened report to this URL (herald serve: http://host:8080/v1/opens)."),
        .value("opened-callback-key", "key", "Bearer key sent with each report (herald serve: the app's client key)."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var config = SimulatorConfiguration()
        config.host = args.value("host") ?? "127.0.0.1"
        config.sandboxPort = try args.int("port") ?? 2197
        let production = try args.int("production-port") ?? 2198
        config.productionPort = production < 0 ? nil : production
        config.inspectionPort = try args.int("inspection-port") ?? 8090
        config.legacyGatewayPort = try args.int("legacy-port")
        config.legacyFeedbackPort = try args.int("feedback-port")
        let dataDir = args.value("data-dir") ?? "herald-sim-data"
        config.dataDirectory = URL(fileURLWithPath: dataDir)
        if args.has("accept-all") { config.mode = .acceptAll }
        config.useTLS = !args.has("h2c")
        if let n = try args.int("max-streams") { config.maxConcurrentStreams = UInt32(max(1, n)) }
        if let n = try args.int("token-bytes") {
            config.tokens = DeviceTokenRule(issuedByteCount: n, acceptedByteCounts: min(n, 8)...max(n, 100))
        }
        if let json = args.value("faults") {
            do { config.faults = try JSONDecoder().decode(FaultConfiguration.self, from: Data(json.utf8)).validated() } catch {
                throw UsageError("--faults is not a fault configuration: \(error)")
            }
        }
        if let url = args.value("opened-callback") { config.openedCallbackURL = URL(string: url) }
        config.openedCallbackKey = args.value("opened-callback-key")

        let simulator = try Simulator(configuration: config)
        let ports = try await simulator.start()
        let caFile = URL(fileURLWithPath: dataDir).appendingPathComponent("ca.pem").path
        try simulator.certificateAuthority().certificate.pem.write(toFile: caFile, atomically: true, encoding: .utf8)
        let scheme = config.useTLS ? "TLS" : "h2c"
        print("herald sim: APNs simulator running (\(config.mode.rawValue) mode)")
        print("  sandbox provider API     \(config.host):\(ports.sandbox) (\(scheme))")
        if ports.production != 0 { print("  production provider API  \(config.host):\(ports.production) (\(scheme))") }
        print("  inspection API, devices  http://\(config.host):\(ports.inspection)")
        if ports.legacyGateway != 0 { print("  legacy binary API        \(config.host):\(ports.legacyGateway) (TLS)") }
        if ports.legacyFeedback != 0 { print("  legacy feedback service  \(config.host):\(ports.legacyFeedback) (TLS)") }
        print("  CA certificate           \(caFile)   (pass it to clients: herald send --ca \(caFile))")
        print("Next: `herald sim key --bundle-id <your.bundle.id>` and `herald device --bundle-id <your.bundle.id>`.")
        fflush(nil)
        await waitForTermination()
        print("herald sim: stopping")
        await simulator.stop()
        return 0
    }
}

/// Waits for SIGINT or SIGTERM.
func waitForTermination() async {
    await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
        let once = OnceFlag()
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { if once.claim() { cont.resume() } }
            source.resume()
            SignalSources.keep(source)
        }
    }
}

final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    func claim() -> Bool { lock.lock(); defer { lock.unlock() }; if done { return false }; done = true; return true }
}

enum SignalSources {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    private static let lock = NSLock()
    static func keep(_ s: DispatchSourceSignal) { lock.lock(); sources.append(s); lock.unlock() }
}

enum SimKeyCommand: Command {
    static let name = "sim key"
    static let abstract = "Make a provider signing key (.p8) and register it with the simulator."
    static let usage = "--bundle-id <id> [--team-id T] [--key-id K] [--out dir]"
    static let options: [Option] = [
        .value("bundle-id", "id", "App the key may send to (repeatable; default: any).", repeatable: true),
        .value("team-id", "id", "Team id (default SIMTEAM001)."),
        .value("key-id", "id", "Key id (default: random 10 characters)."),
        .value("environment", "sandbox|production", "Limit the key to one environment (default: both)."),
        .value("out", "dir", "Where to write AuthKey_<id>.p8 (default: current directory)."),
        SimCommand.simOption,
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let key = try PrivateKey.generateP256()
        let keyID = args.value("key-id") ?? String(SecureRandom.hexString(byteCount: 5).uppercased())
        let teamID = args.value("team-id") ?? "SIMTEAM001"
        var body: [String: Any] = ["keyId": keyID, "teamId": teamID, "publicKeyPem": key.publicKey.pem]
        if !args.all("bundle-id").isEmpty { body["bundleIds"] = args.all("bundle-id") }
        if let env = args.value("environment") { body["environment"] = env }
        try await SimCommand.api(args).call("POST", "/keys", json: body)
        let dir = args.value("out") ?? "."
        let file = URL(fileURLWithPath: dir).appendingPathComponent("AuthKey_\(keyID).p8").path
        try writeSecretFile(Array(try key.pkcs8PEM().utf8), to: file)
        print("signing key registered: key id \(keyID), team id \(teamID)")
        print("  \(file)")
        print("use: herald send --key \(file) --key-id \(keyID) --team-id \(teamID) ...")
        return 0
    }
}

enum SimCertCommand: Command {
    static let name = "sim cert"
    static let abstract = "Issue an APNs client certificate for an app (.p12 and PEM) from the simulator CA."
    static let usage = "--bundle-id <id> [--environment sandbox|production|both] [--passphrase P] [--out prefix]"
    static let options: [Option] = [
        .value("bundle-id", "id", "The app (certificate UID)."),
        .value("environment", "env", "sandbox, production or both (default sandbox)."),
        .value("team-id", "id", "Team id (default SIMTEAM001)."),
        .value("passphrase", "text", "Passphrase for the .p12 and the PEM key (default herald)."),
        .value("out", "prefix", "Files to write: <prefix>.p12 and <prefix>.pem (default: the bundle id)."),
        SimCommand.simOption,
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let bundleID = try args.required("bundle-id")
        let env = args.value("environment") ?? "sandbox"
        let environments = env == "both" ? ["sandbox", "production"] : [env]
        let passphrase = args.value("passphrase") ?? "herald"
        let reply = try await SimCommand.api(args).call("POST", "/certificates", json: [
            "bundleId": bundleID, "environments": environments, "teamId": args.value("team-id") ?? "SIMTEAM001",
            "p12Passphrase": passphrase]) as? [String: Any]
        guard let reply, let p12 = (reply["p12Base64"] as? String).flatMap({ Data(base64Encoded: $0) }),
              let certPEM = reply["certificatePem"] as? String, let keyPEM = reply["privateKeyPem"] as? String else {
            throw JSONAPIClient.Failure(status: 0, message: "unexpected answer from the simulator")
        }
        let prefix = args.value("out") ?? bundleID
        try writeSecretFile([UInt8](p12), to: prefix + ".p12")
        // The PEM holds the certificate and the key encrypted with the passphrase, like the seeds' ck.pem.
        let encryptedKey = try PrivateKey(pem: keyPEM).pkcs8PEM(passphrase: passphrase)
        try writeSecretFile(Array((certPEM + encryptedKey).utf8), to: prefix + ".pem")
        print("client certificate for \(bundleID) (\(environments.joined(separator: " + ")))")
        print("  \(prefix).p12  and  \(prefix).pem   passphrase: \(passphrase)")
        print("use: herald send --cert \(prefix).pem --passphrase \(passphrase) ...")
        return 0
    }
}

enum SimDevicesCommand: Command {
    static let name = "sim devices"
    static let abstract = "List simulated devices with their apps and tokens."
    static let usage = "[--json]"
    static let options: [Option] = [.flag("json", "Print the JSON as the simulator returns it."), SimCommand.simOption]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let reply = try await SimCommand.api(args).call("GET", "/devices") as? [String: Any]
        if args.has("json") { print(JSONAPIClient.pretty(reply)); return 0 }
        let devices = reply?["devices"] as? [[String: Any]] ?? []
        if devices.isEmpty { print("no devices yet: `herald sim install --bundle-id <id>` makes one") }
        for d in devices {
            let online = (d["online"] as? Bool) == true ? "online" : "offline"
            print("\(d["id"] ?? "?")  \(d["name"] ?? "")  \(online)")
            for app in d["apps"] as? [[String: Any]] ?? [] {
                print("    \(app["bundleId"] ?? "?") [\(app["environment"] ?? "?")] \(app["token"] ?? "-")")
            }
        }
        return 0
    }
}

enum SimInstallCommand: Command {
    static let name = "sim install"
    static let abstract = "Install an app on a simulated device (a new device unless --device) and print its token."
    static let usage = "--bundle-id <id> [--environment sandbox|production] [--device ID] [--name text]"
    static let options: [Option] = [
        .value("bundle-id", "id", "The app."), .value("environment", "env", "sandbox (default) or production."),
        .value("device", "id", "An existing device."), .value("name", "text", "Name for a new device."),
        .flag("json", "Print JSON."), SimCommand.simOption,
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let api = try SimCommand.api(args)
        let (deviceID, token) = try await installApp(api, args)
        if args.has("json") {
            print(JSONAPIClient.pretty(["deviceId": deviceID, "token": token]))
        } else {
            print("device \(deviceID)\ntoken  \(token)")
        }
        return 0
    }

    /// Creates the device when needed and installs the app; returns (device id, token).
    static func installApp(_ api: JSONAPIClient, _ args: ParsedArguments) async throws -> (String, String) {
        let bundleID = try args.required("bundle-id", "the app to install")
        var deviceID = args.value("device")
        if deviceID == nil {
            var body: [String: Any] = ["online": false]
            if let name = args.value("name") { body["name"] = name }
            let created = try await api.call("POST", "/devices", json: body) as? [String: Any]
            deviceID = created?["id"] as? String
        }
        guard let deviceID else { throw JSONAPIClient.Failure(status: 0, message: "the simulator did not return a device id") }
        let app = try await api.call("POST", "/devices/\(deviceID)/apps",
                                     json: ["bundleId": bundleID, "environment": args.value("environment") ?? "sandbox"]) as? [String: Any]
        guard let token = app?["token"] as? String else { throw JSONAPIClient.Failure(status: 0, message: "the simulator did not return a token") }
        return (deviceID, token)
    }
}

enum SimUninstallCommand: Command {
    static let name = "sim uninstall"
    static let abstract = "Uninstall an app: its token then answers 410 Unregistered."
    static let usage = "--device ID --bundle-id <id>"
    static let options: [Option] = [.value("device", "id", "The device."), .value("bundle-id", "id", "The app."), SimCommand.simOption]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let device = try args.required("device"), bundle = try args.required("bundle-id")
        try await SimCommand.api(args).call("DELETE", "/devices/\(device)/apps/\(bundle)")
        print("uninstalled \(bundle) from \(device)")
        return 0
    }
}

enum SimPresenceCommand: Command {
    static let name = "sim presence"
    static let abstract = "Take a device online or offline (offline devices store the newest notification per app)."
    static let usage = "--device ID (--online | --offline)"
    static let options: [Option] = [.value("device", "id", "The device."), .flag("online", "Bring it online."), .flag("offline", "Take it offline."), SimCommand.simOption]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let device = try args.required("device")
        guard args.has("online") != args.has("offline") else { throw UsageError("give --online or --offline") }
        let reply = try await SimCommand.api(args).call("POST", "/devices/\(device)/\(args.has("online") ? "online" : "offline")") as? [String: Any]
        let delivered = (reply?["delivered"] as? [Any])?.count ?? 0
        print("\(device) is \(args.has("online") ? "online" : "offline")" + (delivered > 0 ? "; \(delivered) stored notification(s) delivered" : ""))
        return 0
    }
}

enum SimPushCommand: Command {
    static let name = "sim push"
    static let abstract = "Deliver an Xcode .apns file (payload with \"Simulator Target Bundle\") to simulated devices."
    static let usage = "FILE.apns [--device ID]"
    static let discussion = """
    Without --device, every simulated device that has the app named by "Simulator Target Bundle" gets it.
    """
    static let options: [Option] = [
        .value("device", "id", "Deliver to this device only (default: every device with the app)."), SimCommand.simOption,
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard let path = args.positionals.first else { throw UsageError("give the .apns file: herald sim push FILE.apns [--device ID]") }
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("cannot read \(path)") }
        let file: APNSFile
        do { file = try APNSFile([UInt8](data)) } catch { throw UsageError("\(path) is not a usable .apns file: \(error)") }
        let device = args.value("device")
        let route = device.map { "/devices/\($0)/apns-file" } ?? "/apns-file"
        let reply = try await SimCommand.api(args).call("POST", route, body: [UInt8](data), contentType: "application/json") as? [String: Any]
        let count = (reply?["delivered"] as? [Any])?.count ?? 0
        print("delivered \(count) notification(s) to " + (device ?? "the devices with \(file.bundleID)"))
        return 0
    }
}

enum SimFaultsCommand: Command {
    static let name = "sim faults"
    static let abstract = "Show or change fault injection (500/503/429 rates, GOAWAY, resets, delays, stream limit)."
    static let usage = "[--set JSON]"
    static let discussion = """
    Keys: seed, internalServerErrorRate, serviceUnavailableRate, tooManyRequestsRate, connectionResetRate,
    neverAnswerRate, delayRate, delayMilliseconds, goAwayAfterStreams, goAwayReason,
    maxConcurrentStreamsOverride, tlsHandshakeDelayMilliseconds. `--set '{}'` clears every fault.
    """
    static let options: [Option] = [.value("set", "json", "New fault configuration (keys not given reset to none)."), SimCommand.simOption]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let api = try SimCommand.api(args)
        if let json = args.value("set") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) else { throw UsageError("--set must be a JSON object") }
            print(JSONAPIClient.pretty(try await api.call("PUT", "/faults", json: object)))
        } else {
            print(JSONAPIClient.pretty(try await api.call("GET", "/faults")))
        }
        return 0
    }
}

enum SimStatsCommand: Command {
    static let name = "sim stats"
    static let abstract = "Counters: accepted, rejected by reason, delivered, stored, duplicates, opens."
    static let usage = "[--reset]"
    static let options: [Option] = [.flag("reset", "Clear counters and received notifications after printing."), SimCommand.simOption]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let api = try SimCommand.api(args)
        print(JSONAPIClient.pretty(try await api.call("GET", "/stats")))
        if args.has("reset") { try await api.call("POST", "/reset") }
        return 0
    }
}
