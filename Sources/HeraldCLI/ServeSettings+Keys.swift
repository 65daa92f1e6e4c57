import APNSCore
import HeraldServer

extension ServeSettings {
    /// The keys only `herald serve` reads (listener, data directory, log, simulator, APNs endpoints); the
    /// service's keys are `HeraldConfiguration.table`, and `ServeCommand.table` puts both in one list.
    static let keys: [ConfigurationKey<ServeSettings>] = [
        ConfigurationKey("http.host", "where the REST API listens: address", default: "127.0.0.1",
                         parse: { s, value in s.host = value }, show: { $0.host }),
        port("http.port", \.port, "where the REST API listens: port", default: "8080"),
        path("http.tlsCertificate", \.tlsCertificate,
             "PEM certificate chain (the server's certificate, then intermediates); with http.tlsKey the listener speaks HTTPS only",
             default: "not set: plain HTTP"),
        path("http.tlsKey", \.tlsKey, "PEM private key (RSA or EC, unencrypted) of http.tlsCertificate", default: "not set"),
        ConfigurationKey("http.tlsReloadInterval", "seconds between checks of the certificate and key files for a change (0: only on SIGHUP)",
                         default: "10",
                         parse: { s, value in
                             guard let n = Double(value), n >= 0, n <= 86_400 else {
                                 throw UsageError("http.tlsReloadInterval must be a number of seconds in 0...86400, got \"\(value)\"")
                             }
                             s.tlsReloadInterval = n == 0 ? nil : .milliseconds(Int64(n * 1000))
                         },
                         show: { s in
                             guard let d = s.tlsReloadInterval else { return "0 (only on SIGHUP)" }
                             let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
                             return seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
                         }),
        ConfigurationKey("data.dir", "store (unless store.path), secret key file, the simulator's state", default: "herald-data",
                         parse: { s, value in s.dataDirectory = value }, show: { $0.dataDirectory }),
        ConfigurationKey("log.format", "text or json", default: "text on a terminal, JSON lines otherwise",
                         parse: { s, value in
                             guard let format = Log.Format(rawValue: value) else { throw UsageError("log.format must be text or json, got \"\(value)\"") }
                             s.logFormat = format
                         },
                         show: { $0.logFormat?.rawValue ?? "(not set: text on a terminal, json otherwise)" }),
        bool("simulator.enabled", \.simulatorEnabled, "run the built-in APNs simulator; the first start gives the default app credentials made by it",
             default: "true"),
        port("simulator.port", \.simulatorPort, "the simulator's sandbox provider port", default: "0 (a free port)"),
        port("simulator.inspectionPort", \.simulatorInspectionPort, "the simulator's inspection API (herald device)", default: "8090"),
        bool("simulator.acceptAll", \.simulatorAcceptAll,
             "counting mode: the simulator acknowledges every request, stores nothing (benchmarks, imported registries)", default: "false"),
        ConfigurationKey("simulator.unregisteredRate", "counting mode: share of tokens (0-1, the same ones each time) answered 410 Unregistered (benchmarks)",
                         default: "0",
                         parse: { s, value in
                             guard let rate = Double(value), (0...1).contains(rate) else {
                                 throw UsageError("simulator.unregisteredRate must be a number from 0 to 1, got \"\(value)\"")
                             }
                             s.simulatorUnregisteredRate = rate
                         },
                         show: { String(format: "%g", $0.simulatorUnregisteredRate) }),
        ConfigurationKey("default.bundleId", "topic of the default app made on first start", default: "com.example.herald",
                         parse: { s, value in s.defaultBundleID = value }, show: { $0.defaultBundleID }),
        endpoint("apns.sandboxEndpoint", \.apns.sandbox, "host:port for sandbox credentials that are not the simulator's (a standalone herald sim, a gateway)",
                 default: APNSClientTransport.Endpoints.apple.sandbox),
        endpoint("apns.productionEndpoint", \.apns.production, "host:port for production credentials that are not the simulator's",
                 default: APNSClientTransport.Endpoints.apple.production),
        ConfigurationKey("apns.caFile", "CA to trust for those endpoints", default: "system CAs",
                         parse: { s, value in s.apns.caFile = value }, show: { $0.apns.caFile ?? "(not set: the system's CAs)" }),
    ]

    private typealias Key = ConfigurationKey<ServeSettings>

    /// Port 0 asks the kernel for a free port, and `--print-config` says so.
    private static func port(_ key: String, _ path: WritableKeyPath<ServeSettings, Int> & Sendable, _ help: String,
                             default defaultText: String) -> Key {
        Key(key, help, default: defaultText, parse: { s, value in
            guard let n = Int(value), (0...65535).contains(n) else { throw UsageError("\(key) must be a number in 0...65535, got \"\(value)\"") }
            s[keyPath: path] = n
        }, show: { s in s[keyPath: path] == 0 ? "0 (a free port)" : String(s[keyPath: path]) })
    }

    private static func path(_ key: String, _ path: WritableKeyPath<ServeSettings, String?> & Sendable, _ help: String,
                             default defaultText: String) -> Key {
        Key(key, help, default: defaultText, parse: { s, value in s[keyPath: path] = value.isEmpty ? nil : value },
            show: { $0[keyPath: path] ?? "(not set)" })
    }

    private static func bool(_ key: String, _ path: WritableKeyPath<ServeSettings, Bool> & Sendable, _ help: String,
                             default defaultText: String) -> Key {
        Key(key, help, default: defaultText, parse: { s, value in
            guard let b = Bool(value) else { throw UsageError("\(key) must be true or false, got \"\(value)\"") }
            s[keyPath: path] = b
        }, show: { String($0[keyPath: path]) })
    }

    /// The default is given as the endpoint itself so that the text shown is the host and port in use.
    private static func endpoint(_ key: String, _ path: WritableKeyPath<ServeSettings, APNSEnvironment> & Sendable, _ help: String,
                                 default defaultEndpoint: APNSEnvironment) -> Key {
        Key(key, help, default: defaultEndpoint.description, parse: { s, value in
            s[keyPath: path] = try EndpointOptions.endpoint(value, name: key)
        }, show: { $0[keyPath: path].description })
    }
}
