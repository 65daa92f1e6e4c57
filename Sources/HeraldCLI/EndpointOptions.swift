import Foundation
import APNSCore
import APNSClient
import HeraldCrypto
import HeraldIO

/// Credential and endpoint flags, shared by `herald send` and the benchmark tools.
enum EndpointOptions {
    static let options: [Option] = [
        .value("key", "AuthKey_X.p8", "Token auth: the .p8 signing key."),
        .value("key-id", "id", "Token auth: the key's 10-character Key ID."),
        .value("team-id", "id", "Token auth: your 10-character Team ID."),
        .value("cert", "file", "Certificate auth: a PEM file with the certificate (and the key, as in ck.pem), or a .p12."),
        .value("cert-key", "file", "Certificate auth: the private key PEM when it is not in --cert."),
        .value("passphrase", "text", "Passphrase of an encrypted key or .p12 (or env HERALD_PASSPHRASE)."),
        .flag("sandbox", "Send to the sandbox (development) APNs."),
        .flag("production", "Send to the production APNs (default)."),
        .value("host", "host:port", "Send to another endpoint, such as `herald sim`."),
        .value("ca", "file", "Trust this CA (PEM) for the endpoint instead of the system store."),
        .flag("h2c", "Cleartext HTTP/2 with prior knowledge (local sinks only)."),
        .flag("alt-port", "Use port 2197 instead of 443."),
        .value("proxy", "http://host:port", "Connect through an HTTP CONNECT proxy (or env HTTPS_PROXY)."),
        .value("connections", "n", "Connections to open (default 1)."),
        .value("concurrency", "n", "Notifications in flight at most (default 1000)."),
        .value("streams", "n", "Streams per connection at most, whatever the server allows (default 1000)."),
        .value("timeout", "seconds", "Per-request deadline (default 30)."),
        .value("retries", "n", "Extra attempts for transient failures (default 3)."),
    ]

    static func credentials(_ args: ParsedArguments) throws -> APNSCredentials {
        let passphrase = args.value("passphrase") ?? ProcessInfo.processInfo.environment["HERALD_PASSPHRASE"]
        if let key = args.value("key") {
            guard args.value("cert") == nil else { throw UsageError("give either --key (token auth) or --cert (certificate auth), not both") }
            let keyID = try args.required("key-id", "token auth needs the Key ID shown next to the key in your Apple developer account")
            let teamID = try args.required("team-id", "token auth needs your Team ID")
            do {
                return .token(try APNSSigningKey(p8File: key, keyID: keyID, teamID: teamID))
            } catch {
                throw UsageError("cannot load the signing key \(key): \(error)")
            }
        }
        if let cert = args.value("cert") {
            do {
                if cert.hasSuffix(".p12") || cert.hasSuffix(".pfx") {
                    return try .certificate(p12File: cert, passphrase: passphrase ?? "")
                }
                return try .certificate(pemFile: cert, keyFile: args.value("cert-key"), passphrase: passphrase)
            } catch {
                throw UsageError("cannot load the certificate \(cert): \(error)")
            }
        }
        throw UsageError("no credentials: give --key with --key-id and --team-id (token auth), or --cert (certificate auth)")
    }

    static func environment(_ args: ParsedArguments) throws -> APNSEnvironment {
        if let hostPort = args.value("host") { return try endpoint(hostPort, name: "--host") }
        if args.has("sandbox") && args.has("production") { throw UsageError("give --sandbox or --production, not both") }
        let env: APNSEnvironment = args.has("sandbox") ? .sandbox : .production
        return args.has("alt-port") ? env.usingAlternativePort : env
    }

    /// `host:port` (IPv6 in brackets) as an APNs endpoint; `name` says which setting it came from.
    static func endpoint(_ text: String, name: String) throws -> APNSEnvironment {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
            throw UsageError("\(name) must be host:port, got \"\(text)\"")
        }
        return .custom(host: String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port)
    }

    static func configuration(_ args: ParsedArguments, credentials: APNSCredentials) throws -> APNSClient.Configuration {
        var config = APNSClient.Configuration(environment: try environment(args), credentials: credentials)
        config.caFile = args.value("ca")
        config.cleartext = args.has("h2c")
        if let proxy = args.value("proxy") ?? ProcessInfo.processInfo.environment["HTTPS_PROXY"] ?? ProcessInfo.processInfo.environment["https_proxy"] {
            guard let parsed = ProxyConfiguration(url: proxy) else { throw UsageError("--proxy must look like http://host:port, got \"\(proxy)\"") }
            config.proxy = parsed
        }
        config.connections = try args.int("connections") ?? 1
        config.maxInFlight = try args.int("concurrency") ?? 1000
        config.maxStreamsPerConnection = try args.int("streams") ?? 1000
        config.requestTimeout = .seconds(try args.int("timeout") ?? 30)
        config.retry.maxAttempts = 1 + (try args.int("retries") ?? 3)
        guard config.connections > 0, config.maxInFlight > 0 else { throw UsageError("--connections and --concurrency must be at least 1") }
        return config
    }

    /// The topic: --topic, or the bundle id in the certificate's subject (UID=...).
    static func topic(_ args: ParsedArguments, credentials: APNSCredentials) throws -> String {
        if let topic = args.value("topic") { return topic }
        if case let .certificate(identity) = credentials, let uid = identity.certificate.subjectUID { return uid }
        throw UsageError("--topic is required: your app's bundle id (plus .voip etc. for those push types)")
    }
}
