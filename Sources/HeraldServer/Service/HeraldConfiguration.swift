import Foundation
import HeraldHTTP

/// Settings of `herald serve`. Each has one dotted key (`delivery.batchSize`), which the CLI also accepts as
/// `HERALD_DELIVERY_BATCH_SIZE` and `--delivery-batch-size`; `init(values:)` reads the dotted form. The keys,
/// their parsing, defaults and display are the rows of `table` (HeraldConfiguration+Keys.swift).
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
    /// `delivery.fanOutBatchSize`: installations resolved per fan-out transaction (a page). A page larger
    /// than `concurrency` x `batchSize` gives each slot several batches, sent one after the other: the wire
    /// still holds at most a batch per slot, and a round, whose end waits for its slowest slot, carries
    /// more (with 2,000, one batch per slot, a 1,000,000-device push ran at 0.83 of the rate;
    /// docs/performance.md, "Fan-out pages").
    public var fanOutBatchSize: Int = 8_000
    /// `delivery.batchSize`: deliveries claimed and handed to the transport at once.
    public var dispatchBatchSize: Int = 500
    /// `delivery.concurrency`: transport batches in flight at once.
    public var dispatchConcurrency: Int = 4
    /// `delivery.inFlight`: notifications on the wire at once to one app's APNs environment at most, whatever
    /// the batches handed over; with the round trip it bounds the rate (2,000 at 50 ms is 40,000/s). Below it the
    /// window follows the peer (`InFlightWindow`): 256 for one that answers within 2.5 ms, since what is on the
    /// wire is what a crash may send twice (docs/performance.md, "Crash duplicates, round 5").
    public var inFlight: Int = HeraldConfiguration.defaultInFlight
    public static let defaultInFlight = 2_000
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
    /// `delivery.journalInterval` seconds between commits of the delivery journal (`DeliveryJournal`); 0: no journal;
    /// nil: the store's default (`HeraldStorage.defaultJournalInterval`: 2 ms on SQLite, 5 ms on PostgreSQL).
    public var journalInterval: Double?
    /// `webhooks.*`: sending events to webhooks.
    public var webhooks = WebhookSettings()

    /// `cluster.node`: the name this node's id starts with (a random suffix follows); nil: the host name.
    public var nodeName: String?
    /// `cluster.leaseSeconds`: how long a node's claims outlive its last renewal; after that another node
    /// rescues its deliveries and fan-outs (PostgreSQL only).
    public var leaseSeconds: Double = 15
    /// `cluster.renewSeconds`: how often a node renews its lease, and the leader looks for expired ones.
    public var renewSeconds: Double = 5

    /// Where deliveries go, as `/healthz` reports it (set by whoever wires the transport; not a config key).
    public var deliveryTarget: String?

    public init() {}

    /// The key file in use: `secrets.keyFile`, else `secret.key` next to the database.
    public var effectiveSecretKeyFile: String {
        secretKeyFile ?? URL(fileURLWithPath: databasePath).deletingLastPathComponent().appendingPathComponent("secret.key").path
    }

    /// Each key's value as the service uses it (defaults included), for `herald serve --print-config`.
    /// Secrets say only whether they are set.
    public var effectiveValues: [String: String] {
        Dictionary(uniqueKeysWithValues: Self.table.map { ($0.key, $0.shown(in: self)) })
    }

    /// A configuration problem, with the key at fault.
    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public var key: String
        public var message: String
        public var description: String { "configuration \(key): \(message)" }
    }

    /// Reads dotted keys; unknown keys and bad values are errors that name the key. Keys are applied in the
    /// table's order, so with several bad values the same one is reported every time.
    public init(values: [String: String]) throws {
        self.init()
        let known = Set(Self.table.map(\.key))
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw Invalid(key: unknown, message: "unknown key; known keys: \(Self.table.map(\.key).joined(separator: ", "))")
        }
        for row in Self.table {
            if let value = values[row.key] { try row.apply(value, to: &self) }
        }
        // Two renewals fit in a lease, so one slow or lost renewal does not cost a live node its work.
        guard renewSeconds * 2 <= leaseSeconds else {
            throw Invalid(key: "cluster.renewSeconds", message: "must be at most half of cluster.leaseSeconds (\(leaseSeconds) s)")
        }
    }
}
