import Synchronization

/// Counters and gauges rendered in the Prometheus text format. Label sets are small and fixed
/// (route pattern, status, reason), so the map stays bounded.
public final class Metrics: Sendable {
    struct Series: Hashable { var name: String; var labels: String }
    /// Each series' value lives in a cell of its own, so a `Key` can change it without the map's lock.
    private let counters = Mutex<[Series: Cell]>([:])
    private static let help: [String: (type: String, help: String)] = [
        "herald_http_requests_total": ("counter", "HTTP requests by route and status."),
        "herald_pushes_accepted_total": ("counter", "Pushes accepted by the API."),
        "herald_deliveries_total": ("counter", "Delivery attempts by result (sent, failed, retried) and reason."),
        "herald_installations_retired_total": ("counter", "Installations deactivated after APNs said the token is dead."),
        "herald_transport_batches_total": ("counter", "Batches handed to the push transport."),
        "herald_fanout_deliveries_total": ("counter", "Delivery rows created by fan-out."),
        "herald_queue_pending": ("gauge", "Deliveries of active pushes not yet finished."),
        "herald_apps_paused": ("gauge", "Apps whose delivery is paused by a credential failure."),
        "herald_transport_batch_seconds": ("histogram", "Time from handing a batch to the transport until every result is back."),
        "herald_apns_requests_total": ("counter", "Requests sent to APNs (retries count again)."),
        "herald_apns_responses_total": ("counter", "APNs answers by status and reason."),
        "herald_apns_failures_total": ("counter", "Requests that got no APNs answer (connection lost, timeout)."),
        "herald_apns_connections_total": ("counter", "APNs connections by event (opened, closed, failed)."),
        "herald_apns_latency_seconds": ("histogram", "Time from sending a notification to APNs' answer."),
        "herald_apns_in_flight_window": ("gauge", "Notifications on the wire at most per app and environment, as its last probe sized it (256 up to delivery.inFlight)."),
        "herald_apns_probe_seconds": ("histogram", "Answer time of a lone request on an empty wire, which sizes the in-flight window."),
        "herald_cluster_nodes": ("gauge", "Nodes with a live lease on the shared database, as this node last saw them."),
        "herald_cluster_leader": ("gauge", "1 while this node holds the scheduler lease (promotes, purges, rescues)."),
        "herald_cluster_rescues_total": ("counter", "Expired nodes whose work this node took back."),
        "herald_webhook_events_pending": ("gauge", "Events in the outbox not yet acknowledged by their webhook (nor given up)."),
        "herald_webhook_oldest_pending_seconds": ("gauge", "Age of the oldest pending event (0 when none)."),
        "herald_webhook_events_delivered_total": ("counter", "Events acknowledged by a webhook (redeliveries count again)."),
        "herald_webhook_events_failed_total": ("counter", "Events given up after webhooks.maxAge; kept as failed."),
        "herald_webhook_requests_total": ("counter", "Webhook POSTs by result (acknowledged, failed)."),
        "herald_webhook_request_seconds": ("histogram", "Time a webhook POST took, to its answer or failure."),
        "herald_webhooks_disabled": ("gauge", "Webhooks disabled after a run of failed deliveries."),
        "herald_webhooks_disabled_total": ("counter", "Times a webhook was disabled after a run of failed deliveries."),
    ]
    /// Default histogram buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    public init() {}

    public func increment(_ name: String, _ labels: [(String, String)] = [], by value: Double = 1) {
        cell(Series(name: name, labels: Self.render(labels))).add(value)
    }

    /// The cell of `series`, made (at zero) on first use.
    private func cell(_ series: Series) -> Cell {
        counters.withLock { all in
            if let cell = all[series] { return cell }
            let cell = Cell()
            all[series] = cell
            return cell
        }
    }

    /// Records one observation in a cumulative histogram (`_bucket{le=...}`, `_sum`, `_count`).
    public func observe(_ name: String, _ value: Double, buckets: [Double] = Metrics.latencyBuckets) {
        histogram(name, buckets: buckets).observe(value)
    }

    /// The histogram called `name`, made on first use. Hot paths keep the handle: an observation is then
    /// one lock and three additions, with no series looked up.
    public func histogram(_ name: String, buckets: [Double] = Metrics.latencyBuckets) -> Histogram {
        histograms.withLock { all in
            if let h = all[name], h.bounds == buckets { return h }
            let h = Histogram(name: name, bounds: buckets)
            all[name] = h
            return h
        }
    }
    private let histograms = Mutex<[String: Histogram]>([:])

    /// A series named once, for counters bumped on a hot path (twice per APNs answer, on both event loops):
    /// an increment is one atomic addition to its cell, with no label rendering, no hashing of the series'
    /// strings and no lock shared with every other series (1,500 instructions per delivery of a fan-out
    /// before; docs/performance.md, round 13).
    public struct Key: Sendable {
        fileprivate let cell: Cell
    }

    public func key(_ name: String, _ labels: [(String, String)] = []) -> Key {
        Key(cell: cell(Series(name: name, labels: Self.render(labels))))
    }

    public func increment(_ key: Key, by value: Double = 1) {
        key.cell.add(value)
    }

    public func set(_ name: String, _ value: Double) {
        cell(Series(name: name, labels: "")).set(value)
    }

    public func set(_ key: Key, _ value: Double) {
        key.cell.set(value)
    }

    public func value(_ name: String, _ labels: [(String, String)] = []) -> Double {
        counters.withLock { $0[Series(name: name, labels: Self.render(labels))]?.value ?? 0 }
    }

    static func render(_ labels: [(String, String)]) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",") + "}"
    }

    /// Label values escaped for the text format; most need nothing, and this runs per increment.
    static func escape(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == 10 }) else { return value }
        return value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// The exposition text.
    public func text() -> String {
        var snapshot = counters.withLock { $0.mapValues(\.value) }
        for h in histograms.withLock({ Array($0.values) }) {
            for (series, value) in h.series() { snapshot[series] = value }
        }
        var byName: [String: [(String, Double)]] = [:]
        for (series, value) in snapshot { byName[series.name, default: []].append((series.labels, value)) }
        var out = ""
        var described = Set<String>()
        for name in byName.keys.sorted() {
            // Histogram series share the help of their base name.
            let base = ["_bucket", "_sum", "_count"].first(where: { name.hasSuffix($0) }).map { String(name.dropLast($0.count)) } ?? name
            if let h = Self.help[base] ?? Self.help[name], described.insert(base).inserted {
                out += "# HELP \(base) \(h.help)\n# TYPE \(base) \(h.type)\n"
            }
            for (labels, value) in byName[name]!.sorted(by: { $0.0 < $1.0 }) {
                let v = value.rounded() == value ? String(Int64(value)) : String(value)
                out += "\(name)\(labels) \(v)\n"
            }
        }
        return out
    }
}

extension Metrics {
    /// A counter's or gauge's value: a `Double` kept as its bits in an atomic word, so that adding to it
    /// takes no lock (a compare-and-exchange loop, which retries only when another thread added meanwhile).
    final class Cell: Sendable {
        private let bits = Atomic<UInt64>(0)   // 0 is +0.0

        var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }

        func add(_ delta: Double) {
            var seen = bits.load(ordering: .relaxed)
            while true {
                let (exchanged, current) = bits.compareExchange(expected: seen, desired: (Double(bitPattern: seen) + delta).bitPattern,
                                                                ordering: .relaxed)
                if exchanged { return }
                seen = current
            }
        }

        func set(_ value: Double) { bits.store(value.bitPattern, ordering: .relaxed) }
    }
}
