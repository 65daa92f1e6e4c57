import Foundation
import HeraldCrypto
import HeraldHTTP
import HeraldIO
import HeraldServer
import HeraldProvider
import HeraldSimulator
import APNSCore

/// `herald serve`: the provider service.
enum ServeCommand: Command {
    static let name = "serve"
    static let abstract = "Run the provider service: apps, device registry, push API, delivery to APNs."
    static let usage = "[--config FILE] [--http-port 8080] [--data-dir herald-data] [--tls-cert FILE --tls-key FILE] [--<dotted-key> value ...]"
    static var discussion: String {
        """
        Every setting has one dotted key, an environment variable and a flag; flags win over the environment,
        which wins over the file (`key = value` lines or a JSON object), which wins over the defaults:
          http.port  =  HERALD_HTTP_PORT  =  --http-port
        Every key is listed below as its flag, with its default; docs/server.md has the same table.

        HTTPS: --tls-cert FILE --tls-key FILE (short for --http-tls-certificate / --http-tls-key) serve the API
        over TLS with a PEM certificate chain and key; renewed files are picked up within
        http.tlsReloadInterval seconds, or at once on SIGHUP, without a restart.

        On first start it creates an admin key and a default app and prints their keys once. Apps without
        Apple credentials deliver to the built-in APNs simulator (simulator.enabled, on by default), whose
        inspection API `herald device` and `herald sim` use (simulator.inspectionPort, default 8090).
        """
    }

    /// Every key `serve` reads, its own first, then the service's: the one list that parsing, `--help`,
    /// `--print-config` and the docs' check all read.
    static let table: [ConfigurationKey<ServeSettings>] = ServeSettings.keys + HeraldConfiguration.table.map { $0.lifted(\.service) }
    static var knownKeys: [String] { table.map(\.key) }

    /// Short flags for the keys people type most.
    static let aliases = ["tls-cert": "http.tlsCertificate", "tls-key": "http.tlsKey"]

    static var options: [Option] {
        [.value("config", "file", "Configuration file (key = value lines, or JSON)."),
         .value("tls-cert", "file", "Short for --http-tls-certificate."),
         .value("tls-key", "file", "Short for --http-tls-key."),
         .flag("print-config", "Print the effective configuration and where each value came from, then exit.")]
            + table.map { Option.value(ConfigurationSources.flagName($0.key), "value", "\($0.key): \($0.help) (default: \($0.defaultText))") }
    }

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var flags: [String: String] = [:]
        for (alias, key) in aliases { if let v = args.value(alias) { flags[key] = v } }
        for key in knownKeys { if let v = args.value(ConfigurationSources.flagName(key)) { flags[key] = v } }
        let sources = try ConfigurationSources(file: args.value("config") ?? ProcessInfo.processInfo.environment["HERALD_CONFIG"],
                                               environment: ProcessInfo.processInfo.environment, flags: flags, known: knownKeys)
        let settings = try ServeSettings(sources.values)
        if args.has("print-config") {
            for line in printedConfiguration(settings, sources: sources) { print(line) }
            return 0
        }
        let log = Log(format: settings.logFormat)
        FileDescriptorLimit.raise()   // http.maxConnections is kept below what the process may open
        // Claimed before the start, so a SIGHUP sent as soon as the server answers cannot end the process.
        let hangups = SignalWatcher(SIGHUP)
        let server = try await ProviderServer.start(settings.provider, log: log.handler)
        hangups.onSignal {
            if let tls = server.tls { tls.reload(reason: "SIGHUP") } else { log.info("SIGHUP: no TLS certificate configured, nothing to reload") }
        }
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
        table.map { row in
            "\(row.key) = \(row.shown(in: settings))   # \(sources.origins[row.key] ?? "default")"
        }
    }
}
