import Foundation
import HeraldHTTP
import HeraldPostgres

extension HeraldConfiguration {
    /// Every key `init(values:)` reads, in the order `herald serve --help` and `--print-config` list them. Adding
    /// a setting means adding a row here (and one to docs/server.md, which a test holds to this table).
    public static let table: [ConfigurationKey<HeraldConfiguration>] = [
        text("store.path", \.databasePath, "SQLite file (WAL); its directory is created. The delivery journal goes beside it: <name>-accepted.sqlite", default: "herald-data/herald.sqlite",
             show: { $0.storeURL == nil ? $0.databasePath : "(unused: store.url is set)" }),
        ConfigurationKey("store.url", "a PostgreSQL database instead of SQLite: postgres://user:pass@host:5432/db, postgresql://... or libpq keywords (host=... dbname=...)",
                         default: "– (SQLite)",
                         parse: { c, value in
                             // The value itself is never echoed: it may hold a password.
                             let lower = value.lowercased()
                             guard lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") || value.contains("=") else {
                                 throw Invalid(key: "store.url", message: "expected a PostgreSQL URL (postgres://user:password@host:5432/database) or libpq keywords (host=... dbname=...)")
                             }
                             c.storeURL = value
                         },
                         show: { $0.storeURL.map(PostgresStore.redacted) ?? "(not set: SQLite at store.path)" }),
        .secret("secrets.key", "base64 of 32 bytes sealing credentials at rest (AES-256-GCM)", default: "–",
                unset: "(not set: the key file is used)", isSet: { $0.secretKey != nil },
                parse: { c, value in
                    guard let data = Data(base64Encoded: value), data.count == 32 else {
                        throw Invalid(key: "secrets.key", message: "expected base64 of 32 random bytes (`head -c 32 /dev/urandom | base64`)")
                    }
                    c.secretKey = Array(data)
                }),
        ConfigurationKey("secrets.keyFile", "file with that key; created (0600) on first start when neither is set",
                         default: "<store dir>/secret.key",
                         parse: { c, value in c.secretKeyFile = value },
                         show: { $0.secretKey == nil ? $0.effectiveSecretKeyFile : "(unused: secrets.key is set)" }),
        .secret("admin.key", "an admin key to accept; without it the first start generates one and returns it once", default: "–",
                unset: "(not set: one is generated on first start)", isSet: { $0.adminKey != nil },
                parse: { c, value in
                    guard value.count >= 16 else { throw Invalid(key: "admin.key", message: "an admin key must be at least 16 characters") }
                    c.adminKey = value
                }),
        int("api.maxBodyBytes", \.maxBodyBytes, "larger bodies get 413", default: "1048576 (1 MiB)"),
        int("api.importMaxBodyBytes", \.importMaxBodyBytes, "body limit of the import route (streamed: never held in memory)",
            default: "268435456 (256 MiB)"),
        number("api.rateLimit", \.apiRateLimit, "requests per second per key (client keys: per key and remote address); 0 turns it off",
               default: "200", allowZero: true),
        number("api.rateBurst", \.apiRateBurst, "bucket size of api.rateLimit", default: "400"),
        int("delivery.fanOutBatchSize", \.fanOutBatchSize, "installations resolved per fan-out transaction; each slot sends its share in batches, one after the other", default: "8000"),
        int("delivery.batchSize", \.dispatchBatchSize, "deliveries claimed and handed to the transport at once", default: "500"),
        int("delivery.concurrency", \.dispatchConcurrency, "transport batches in flight", default: "4"),
        int("delivery.inFlight", \.inFlight, "notifications on the wire at once per app and environment, at most: the rate is at most "
            + "this over the round trip to APNs; a peer answering within 2.5 ms gets 256, what a crash may send twice", default: "2000"),
        number("delivery.pollInterval", \.pollInterval, "seconds between idle polls of the queue (an accepted push wakes the loop at once)",
               default: "0.25 s"),
        number("delivery.retryBase", \.retryBase, "seconds: first backoff for transient failures", default: "1 s"),
        number("delivery.retryCap", \.retryCap, "seconds: longest backoff for transient failures", default: "300 s"),
        int("delivery.maxAttempts", \.maxAttempts, "attempts for a delivery", default: "10"),
        number("delivery.defaultTTL", \.defaultTTL, "seconds: retry horizon of pushes without an expiration", default: "86400 s"),
        number("push.idempotencyWindow", \.idempotencyWindow, "seconds an idempotency key returns the same push", default: "86400 s"),
        number("push.retentionDays", \.retentionDays, "days after which finished pushes and their per-device rows are deleted",
               default: "30"),
        ConfigurationKey("delivery.workers", "run the background loop (tests drive service.engine.runUntilIdle())", default: "true",
                         parse: { c, value in
                             guard let b = Bool(value) else { throw Invalid(key: "delivery.workers", message: "expected true or false") }
                             c.runWorkers = b
                         },
                         show: { String($0.runWorkers) }),
        number("delivery.shutdownGrace", \.shutdownGrace, "seconds shutdown waits for batches in flight", default: "10 s", allowZero: true),
        ConfigurationKey("cluster.node", "name of this node in leases and logs (PostgreSQL); a random suffix makes each process's id unique",
                         default: "the host name", parse: { c, value in c.nodeName = value }, show: { $0.nodeName ?? "(host name)" }),
        number("cluster.leaseSeconds", \.leaseSeconds, "seconds a node's claims outlive its last renewal; then another node takes its work over (PostgreSQL)",
               default: "15 s"),
        number("cluster.renewSeconds", \.renewSeconds, "seconds between lease renewals (and the leader's look for expired leases); under cluster.leaseSeconds / 2",
               default: "5 s"),
        seconds("http.headerTimeout", \.httpLimits.headerTimeout, "seconds from a request's first byte to the end of its head; then 408 and close",
                default: "10 s"),
        seconds("http.bodyTimeout", \.httpLimits.bodyTimeout, "longest pause in seconds while a body arrives; then 408 and close", default: "30 s"),
        seconds("http.idleTimeout", \.httpLimits.idleTimeout, "seconds before a keep-alive connection with no request is closed",
                default: "60 s"),
        seconds("http.writeTimeout", \.httpLimits.writeTimeout, "seconds a response may go unread before the connection is dropped",
                default: "30 s"),
        int("http.maxConnections", \.httpLimits.maxConnections, "connections open at once; one past it is closed on arrival", default: "1024"),
        int("http.maxHeaderBytes", \.httpLimits.maxHeaderBytes, "header bytes of one request (trailers included); past it, 431",
            default: "65536 (64 KiB)"),
        int("http.maxHeaderCount", \.httpLimits.maxHeaderCount, "header fields of one request (trailers included); past it, 431",
            default: "128"),
        int("http.maxRequestLineBytes", \.httpLimits.maxRequestLineBytes, "longer request lines get 414", default: "8192 (8 KiB)"),
        number("webhooks.timeout", \.webhooks.timeout, "seconds a webhook receiver has to answer a POST (connect, send, answer)", default: "10 s"),
        number("webhooks.keepAlive", \.webhooks.keepAlive, "seconds an idle connection to a webhook receiver stays open for the next POST (0: a connection per POST)",
               default: "4 s", allowZero: true),
        number("webhooks.retryBase", \.webhooks.retryBase, "seconds: first wait before a failed webhook delivery is tried again", default: "5 s"),
        number("webhooks.retryCap", \.webhooks.retryCap, "seconds: longest wait between tries of a webhook delivery", default: "1800 s"),
        number("webhooks.maxAge", \.webhooks.maxAge, "seconds a webhook delivery is retried, counted from its oldest event; then its events are kept as failed",
               default: "86400 s"),
        int("webhooks.disableAfter", \.webhooks.disableAfter, "webhook deliveries given up in a row that disable the webhook", default: "5"),
        ConfigurationKey("webhooks.caFile", "CA file (PEM) to trust for https webhook receivers instead of the system's", default: "system CAs",
                         parse: { c, value in c.webhooks.caFile = value }, show: { $0.webhooks.caFile ?? "(system CAs)" }),
        ConfigurationKey("webhooks.allowHttp", "allow http:// webhook URLs on any host (otherwise only localhost)", default: "false",
                         parse: { c, value in
                             guard let b = Bool(value) else { throw Invalid(key: "webhooks.allowHttp", message: "expected true or false") }
                             c.webhooks.allowHttp = b
                         },
                         show: { String($0.webhooks.allowHttp) }),
        number("webhooks.pollInterval", \.webhooks.pollInterval, "seconds between looks at the events outbox when idle", default: "1 s"),
        int("webhooks.concurrency", \.webhooks.concurrency, "webhook POSTs in flight at once", default: "4"),
        Key("delivery.journalInterval", "seconds between commits of the acceptances journaled while a fan-out page is out, "
            + "so a crash re-sends only what was in flight; 0 turns the journal off", default: "the store's (0.002 s on SQLite, 0.005 s on PostgreSQL)",
            parse: { c, value in c.journalInterval = try positiveNumber("delivery.journalInterval", value, allowZero: true) },
            show: { $0.journalInterval.map(shown) ?? "the store's" }),
    ]

    private typealias Key = ConfigurationKey<HeraldConfiguration>

    private static func text(_ key: String, _ path: WritableKeyPath<HeraldConfiguration, String> & Sendable, _ help: String,
                             default defaultText: String, show: @escaping @Sendable (HeraldConfiguration) -> String) -> Key {
        Key(key, help, default: defaultText, parse: { c, value in c[keyPath: path] = value }, show: show)
    }

    private static func int(_ key: String, _ path: WritableKeyPath<HeraldConfiguration, Int> & Sendable, _ help: String,
                            default defaultText: String) -> Key {
        Key(key, help, default: defaultText, parse: { c, value in
            guard let n = Int(value), n > 0 else { throw Invalid(key: key, message: "expected a positive integer, got '\(value)'") }
            c[keyPath: path] = n
        }, show: { String($0[keyPath: path]) })
    }

    private static func number(_ key: String, _ path: WritableKeyPath<HeraldConfiguration, Double> & Sendable, _ help: String,
                               default defaultText: String, allowZero: Bool = false) -> Key {
        Key(key, help, default: defaultText, parse: { c, value in
            c[keyPath: path] = try positiveNumber(key, value, allowZero: allowZero)
        }, show: { shown($0[keyPath: path]) })
    }

    /// Durations are given and shown in seconds; stored to the millisecond, as the listener uses them.
    private static func seconds(_ key: String, _ path: WritableKeyPath<HeraldConfiguration, Duration> & Sendable, _ help: String,
                                default defaultText: String) -> Key {
        Key(key, help, default: defaultText, parse: { c, value in
            c[keyPath: path] = .milliseconds(Int64(try positiveNumber(key, value) * 1000))
        }, show: { c in
            let d = c[keyPath: path]
            return shown(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
        })
    }

    private static func positiveNumber(_ key: String, _ value: String, allowZero: Bool = false) throws -> Double {
        guard let n = Double(value), allowZero ? n >= 0 : n > 0 else { throw Invalid(key: key, message: "expected a positive number, got '\(value)'") }
        return n
    }

    /// Whole numbers without a trailing `.0`, so `--print-config` shows `200`, not `200.0`.
    private static func shown(_ n: Double) -> String { n.rounded() == n && abs(n) < 1e15 ? String(Int(n)) : String(n) }
}
