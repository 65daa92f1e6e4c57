import Foundation
import HeraldHTTP
import HeraldPostgres

/// Settings of `herald serve`. Each has one dotted key (`delivery.batchSize`), which the CLI also accepts as
/// `HERALD_DELIVERY_BATCH_SIZE` and `--delivery-batch-size`; `init(values:)` reads the dotted form.
public struct HeraldConfiguration: Sendable {
    /// `store.path`: the SQLite database file.
    public var databasePath: String = "herald-data/herald.sqlite"
    /// `store.url`: a PostgreSQL database (`postgres://user:pass@host:5432/db`, `postgresql://...` or libpq's
    /// `host=... dbname=...`); when set, the store is PostgreSQL and `store.path` is unused.
    public var storeURL: String?
    /// `secrets.key`: base64 of the 32-byte key that encrypts APNs credentials at rest.
    public var secretKey: [UInt8]?
    /// `secrets.keyFile`: file holding that key (created with mode 0600 if missing). Default: next to the database.
    public var secretKeyFile: String?
    /// `admin.key`: an admin key to accept (hashed into the store at start). When unset and no admin key
    /// exists yet, `start()` generates one and returns it once.
    public var adminKey: String?
    /// `api.maxBodyBytes`: largest request body; 413 above it.
    public var maxBodyBytes: Int = 1 << 20
    /// `api.importMaxBodyBytes`: largest body for bulk import.
    public var importMaxBodyBytes: Int = 256 << 20
    /// `http.*`: the HTTP/1.1 listener's limits and timeouts (`http.headerTimeout`, `http.bodyTimeout`,
    /// `http.idleTimeout`, `http.writeTimeout` in seconds; `http.maxConnections`, `http.maxHeaderBytes`,
    /// `http.maxHeaderCount`, `http.maxRequestLineBytes`).
    public var httpLimits = HTTP1Limits()
    /// `api.rateLimit` requests per second per key (client keys: per key and remote address); 0 = off.
    public var apiRateLimit: Double = 200
    /// `api.rateBurst`: bucket size of that limit.
    public var apiRateBurst: Double = 400
    /// `delivery.fanOutBatchSize`: installations resolved per fan-out transaction.
    public var fanOutBatchSize: Int = 2_000
    /// `delivery.batchSize`: deliveries claimed and handed to the transport at once.
    public var dispatchBatchSize: Int = 500
    /// `delivery.concurrency`: transport batches in flight at once.
    public var dispatchConcurrency: Int = 4
    /// `delivery.pollInterval` seconds between queue polls when idle.
    public var pollInterval: Double = 0.25
    /// `delivery.retryBase` / `delivery.retryCap` seconds: exponential backoff with jitter for transient failures.
    public var retryBase: Double = 1
    public var retryCap: Double = 300
    /// `delivery.maxAttempts` for pushes without an expiration.
    public var maxAttempts: Int = 10
    /// `delivery.defaultTTL` seconds: how long a push without expiration keeps being retried.
    public var defaultTTL: Double = 86_400
    /// `push.idempotencyWindow` seconds an idempotency key stays bound to its push.
    public var idempotencyWindow: Double = 86_400
    /// `push.retentionDays`: finished pushes and their per-device rows are deleted after this many days.
    public var retentionDays: Double = 30
    /// `delivery.workers`: run the fan-out/dispatch loop in the background (tests drive it by hand).
    public var runWorkers: Bool = true
    /// `delivery.shutdownGrace` seconds `shutdown()` waits for in-flight batches.
    public var shutdownGrace: Double = 10

    /// Where deliveries go, as `/healthz` reports it (set by whoever wires the transport; not a config key).
    public var deliveryTarget: String?

    public init() {}

    /// Every dotted key understood by `init(values:)`.
    public static let keys = [
        "store.path", "store.url", "secrets.key", "secrets.keyFile", "admin.key", "api.maxBodyBytes", "api.importMaxBodyBytes",
        "api.rateLimit", "api.rateBurst", "delivery.fanOutBatchSize", "delivery.batchSize", "delivery.concurrency",
        "delivery.pollInterval", "delivery.retryBase", "delivery.retryCap", "delivery.maxAttempts", "delivery.defaultTTL",
        "push.idempotencyWindow", "push.retentionDays", "delivery.workers", "delivery.shutdownGrace",
        "http.headerTimeout", "http.bodyTimeout", "http.idleTimeout", "http.writeTimeout", "http.maxConnections",
        "http.maxHeaderBytes", "http.maxHeaderCount", "http.maxRequestLineBytes",
    ]

    /// Keys whose values are secrets: shown masked, never printed or logged.
    public static let secretKeys: Set<String> = ["secrets.key", "admin.key"]

    /// The key file in use: `secrets.keyFile`, else `secret.key` next to the database.
    public var effectiveSecretKeyFile: String {
        secretKeyFile ?? URL(fileURLWithPath: databasePath).deletingLastPathComponent().appendingPathComponent("secret.key").path
    }

    /// Each key's value as the service uses it (defaults included), for `herald serve --print-config`.
    /// Secrets say only whether they are set.
    public var effectiveValues: [String: String] {
        func number(_ n: Double) -> String { n.rounded() == n && abs(n) < 1e15 ? String(Int(n)) : String(n) }
        func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        return [
            "store.path": storeURL == nil ? databasePath : "(unused: store.url is set)",
            "store.url": storeURL.map(PostgresStore.redacted) ?? "(not set: SQLite at store.path)",
            "secrets.key": secretKey == nil ? "(not set: the key file is used)" : "(set, hidden)",
            "secrets.keyFile": secretKey == nil ? effectiveSecretKeyFile : "(unused: secrets.key is set)",
            "admin.key": adminKey == nil ? "(not set: one is generated on first start)" : "(set, hidden)",
            "api.maxBodyBytes": String(maxBodyBytes),
            "api.importMaxBodyBytes": String(importMaxBodyBytes),
            "api.rateLimit": number(apiRateLimit),
            "api.rateBurst": number(apiRateBurst),
            "delivery.fanOutBatchSize": String(fanOutBatchSize),
            "delivery.batchSize": String(dispatchBatchSize),
            "delivery.concurrency": String(dispatchConcurrency),
            "delivery.pollInterval": number(pollInterval),
            "delivery.retryBase": number(retryBase),
            "delivery.retryCap": number(retryCap),
            "delivery.maxAttempts": String(maxAttempts),
            "delivery.defaultTTL": number(defaultTTL),
            "push.idempotencyWindow": number(idempotencyWindow),
            "push.retentionDays": number(retentionDays),
            "delivery.workers": String(runWorkers),
            "delivery.shutdownGrace": number(shutdownGrace),
            "http.headerTimeout": number(seconds(httpLimits.headerTimeout)),
            "http.bodyTimeout": number(seconds(httpLimits.bodyTimeout)),
            "http.idleTimeout": number(seconds(httpLimits.idleTimeout)),
            "http.writeTimeout": number(seconds(httpLimits.writeTimeout)),
            "http.maxConnections": String(httpLimits.maxConnections),
            "http.maxHeaderBytes": String(httpLimits.maxHeaderBytes),
            "http.maxHeaderCount": String(httpLimits.maxHeaderCount),
            "http.maxRequestLineBytes": String(httpLimits.maxRequestLineBytes),
        ]
    }

    /// A configuration problem, with the key at fault.
    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public var key: String
        public var message: String
        public var description: String { "configuration \(key): \(message)" }
    }

    /// Reads dotted keys; unknown keys and bad values are errors that name the key.
    public init(values: [String: String]) throws {
        self.init()
        for (key, value) in values {
            func int() throws -> Int {
                guard let n = Int(value), n > 0 else { throw Invalid(key: key, message: "expected a positive integer, got '\(value)'") }
                return n
            }
            func double(allowZero: Bool = false) throws -> Double {
                guard let n = Double(value), allowZero ? n >= 0 : n > 0 else { throw Invalid(key: key, message: "expected a positive number, got '\(value)'") }
                return n
            }
            switch key {
            case "store.path": databasePath = value
            case "store.url":
                // The value itself is never echoed: it may hold a password.
                let lower = value.lowercased()
                guard lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") || value.contains("=") else {
                    throw Invalid(key: key, message: "expected a PostgreSQL URL (postgres://user:password@host:5432/database) or libpq keywords (host=... dbname=...)")
                }
                storeURL = value
            case "secrets.key":
                guard let data = Data(base64Encoded: value), data.count == 32 else {
                    throw Invalid(key: key, message: "expected base64 of 32 random bytes (`head -c 32 /dev/urandom | base64`)")
                }
                secretKey = Array(data)
            case "secrets.keyFile": secretKeyFile = value
            case "admin.key":
                guard value.count >= 16 else { throw Invalid(key: key, message: "an admin key must be at least 16 characters") }
                adminKey = value
            case "api.maxBodyBytes": maxBodyBytes = try int()
            case "api.importMaxBodyBytes": importMaxBodyBytes = try int()
            case "api.rateLimit": apiRateLimit = try double(allowZero: true)
            case "api.rateBurst": apiRateBurst = try double()
            case "delivery.fanOutBatchSize": fanOutBatchSize = try int()
            case "delivery.batchSize": dispatchBatchSize = try int()
            case "delivery.concurrency": dispatchConcurrency = try int()
            case "delivery.pollInterval": pollInterval = try double()
            case "delivery.retryBase": retryBase = try double()
            case "delivery.retryCap": retryCap = try double()
            case "delivery.maxAttempts": maxAttempts = try int()
            case "delivery.defaultTTL": defaultTTL = try double()
            case "push.idempotencyWindow": idempotencyWindow = try double()
            case "push.retentionDays": retentionDays = try double()
            case "delivery.workers":
                guard let b = Bool(value) else { throw Invalid(key: key, message: "expected true or false") }
                runWorkers = b
            case "delivery.shutdownGrace": shutdownGrace = try double(allowZero: true)
            case "http.headerTimeout": httpLimits.headerTimeout = .milliseconds(Int64(try double() * 1000))
            case "http.bodyTimeout": httpLimits.bodyTimeout = .milliseconds(Int64(try double() * 1000))
            case "http.idleTimeout": httpLimits.idleTimeout = .milliseconds(Int64(try double() * 1000))
            case "http.writeTimeout": httpLimits.writeTimeout = .milliseconds(Int64(try double() * 1000))
            case "http.maxConnections": httpLimits.maxConnections = try int()
            case "http.maxHeaderBytes": httpLimits.maxHeaderBytes = try int()
            case "http.maxHeaderCount": httpLimits.maxHeaderCount = try int()
            case "http.maxRequestLineBytes": httpLimits.maxRequestLineBytes = try int()
            default: throw Invalid(key: key, message: "unknown key; known keys: \(Self.keys.joined(separator: ", "))")
            }
        }
    }
}
