import Foundation
import HeraldCrypto
import HeraldHTTP
import HeraldServer
import HeraldSimulator
import APNSCore

/// `herald serve`: the provider service.
enum ServeCommand: Command {
    static let name = "serve"
    static let abstract = "Run the provider service: apps, device registry, push API, delivery to APNs."
    static let usage = "[--config FILE] [--http-port 8080] [--data-dir herald-data] [--<dotted-key> value ...]"
    static var discussion: String {
        """
        Every setting has one dotted key, an environment variable and a flag; flags win over the environment,
        which wins over the file (`key = value` lines or a JSON object), which wins over the defaults:
          http.port  =  HERALD_HTTP_PORT  =  --http-port
        Keys: \(knownKeys.joined(separator: ", ")).

        On first start it creates an admin key and a default app and prints their keys once. Apps without
        Apple credentials deliver to the built-in APNs simulator (simulator.enabled, on by default), whose
        inspection API `herald device` and `herald sim` use (simulator.inspectionPort, default 8090).
        """
    }

    static let serveKeys = ["http.host", "http.port", "data.dir", "log.format", "simulator.enabled", "simulator.port",
                            "simulator.inspectionPort", "simulator.acceptAll", "default.bundleId", "apns.sandboxEndpoint", "apns.productionEndpoint", "apns.caFile"]
    static var knownKeys: [String] { serveKeys + HeraldConfiguration.keys }

    static var options: [Option] {
        [.value("config", "file", "Configuration file (key = value lines, or JSON)."),
         .flag("print-config", "Print the effective configuration and where each value came from, then exit.")]
            + knownKeys.map { Option.value(ConfigurationSources.flagName($0), "value", "Sets \($0).") }
    }

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var flags: [String: String] = [:]
        for key in knownKeys { if let v = args.value(ConfigurationSources.flagName(key)) { flags[key] = v } }
        let sources = try ConfigurationSources(file: args.value("config") ?? ProcessInfo.processInfo.environment["HERALD_CONFIG"],
                                               environment: ProcessInfo.processInfo.environment, flags: flags, known: knownKeys)
        let settings = try ServeSettings(sources.values)
        if args.has("print-config") {
            for line in printedConfiguration(settings, sources: sources) { print(line) }
            return 0
        }
        let log = Log(format: settings.logFormat)
        let server = try await ProviderServer.start(settings.provider, log: log.handler)
        await waitForTermination()
        log.info("shutting down: finishing in-flight deliveries")
        await server.stop()
        log.info("stopped")
        return 0
    }
}

extension ServeCommand {
    /// `key = value   # origin` for every key, with the value in effect (a default is shown as such);
    /// secrets are masked, never printed.
    static func printedConfiguration(_ settings: ServeSettings, sources: ConfigurationSources) -> [String] {
        let values = settings.effectiveValues
        return knownKeys.map { key in
            "\(key) = \(values[key] ?? "?")   # \(sources.origins[key] ?? "default")"
        }
    }
}

/// The settings `herald serve` reads itself; the rest go to `HeraldConfiguration`.
struct ServeSettings {
    var host = "127.0.0.1"
    var port = 8080
    var dataDirectory = "herald-data"
    var logFormat: Log.Format?
    var simulatorEnabled = true
    var simulatorPort = 0
    var simulatorInspectionPort = 8090
    var simulatorAcceptAll = false
    var defaultBundleID = "com.example.herald"
    var apns = APNSClientTransport.Endpoints.apple
    var service = HeraldConfiguration()

    /// Each key's value in effect, as `--print-config` shows it.
    var effectiveValues: [String: String] {
        var values = service.effectiveValues
        values["http.host"] = host
        values["http.port"] = String(port)
        values["data.dir"] = dataDirectory
        values["log.format"] = logFormat?.rawValue ?? "(not set: text on a terminal, json otherwise)"
        values["simulator.enabled"] = String(simulatorEnabled)
        values["simulator.port"] = simulatorPort == 0 ? "0 (a free port)" : String(simulatorPort)
        values["simulator.inspectionPort"] = simulatorInspectionPort == 0 ? "0 (a free port)" : String(simulatorInspectionPort)
        values["simulator.acceptAll"] = String(simulatorAcceptAll)
        values["default.bundleId"] = defaultBundleID
        values["apns.sandboxEndpoint"] = apns.sandbox.description
        values["apns.productionEndpoint"] = apns.production.description
        values["apns.caFile"] = apns.caFile ?? "(not set: the system's CAs)"
        return values
    }

    var provider: ProviderServer.Settings {
        var s = ProviderServer.Settings()
        s.host = host
        s.port = port
        s.dataDirectory = dataDirectory
        s.simulatorEnabled = simulatorEnabled
        s.simulatorPort = simulatorPort
        s.simulatorInspectionPort = simulatorInspectionPort
        s.simulatorAcceptAll = simulatorAcceptAll
        s.defaultBundleID = defaultBundleID
        s.apns = apns
        s.service = service
        return s
    }

    init(_ values: [String: String]) throws {
        var rest = values
        func take(_ key: String) -> String? { rest.removeValue(forKey: key) }
        func int(_ key: String, _ range: ClosedRange<Int>) throws -> Int? {
            guard let v = take(key) else { return nil }
            guard let n = Int(v), range.contains(n) else { throw UsageError("\(key) must be a number in \(range), got \"\(v)\"") }
            return n
        }
        func bool(_ key: String) throws -> Bool? {
            guard let v = take(key) else { return nil }
            guard let b = Bool(v) else { throw UsageError("\(key) must be true or false, got \"\(v)\"") }
            return b
        }
        host = take("http.host") ?? host
        port = try int("http.port", 0...65535) ?? port
        dataDirectory = take("data.dir") ?? dataDirectory
        if let f = take("log.format") {
            guard let parsed = Log.Format(rawValue: f) else { throw UsageError("log.format must be text or json, got \"\(f)\"") }
            logFormat = parsed
        }
        simulatorEnabled = try bool("simulator.enabled") ?? simulatorEnabled
        simulatorAcceptAll = try bool("simulator.acceptAll") ?? simulatorAcceptAll
        simulatorPort = try int("simulator.port", 0...65535) ?? simulatorPort
        simulatorInspectionPort = try int("simulator.inspectionPort", 0...65535) ?? simulatorInspectionPort
        defaultBundleID = take("default.bundleId") ?? defaultBundleID
        func endpoint(_ key: String) throws -> APNSEnvironment? {
            try take(key).map { try EndpointOptions.endpoint($0, name: key) }
        }
        apns.sandbox = try endpoint("apns.sandboxEndpoint") ?? apns.sandbox
        apns.production = try endpoint("apns.productionEndpoint") ?? apns.production
        apns.caFile = take("apns.caFile")
        if rest["store.path"] == nil { rest["store.path"] = URL(fileURLWithPath: dataDirectory).appendingPathComponent("herald.sqlite").path }
        do {
            service = try HeraldConfiguration(values: rest)
        } catch let e as HeraldConfiguration.Invalid {
            throw UsageError(e.description)
        }
    }
}
