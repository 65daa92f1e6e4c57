import Synchronization

/// Counters and gauges rendered in the Prometheus text format. Label sets are small and fixed
/// (route pattern, status, reason), so the map stays bounded.
public final class Metrics: Sendable {
    fileprivate struct Series: Hashable { var name: String; var labels: String }
    private let counters = Mutex<[Series: Double]>([:])
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
    ]
    /// Default histogram buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    public init() {}

    public func increment(_ name: String, _ labels: [(String, String)] = [], by value: Double = 1) {
        let key = Series(name: name, labels: Self.render(labels))
        counters.withLock { $0[key, default: 0] += value }
    }

    /// Records one observation in a cumulative histogram (`_bucket{le=...}`, `_sum`, `_count`).
    /// Called per APNs answer, so the series keys are built once per histogram, not per observation.
    public func observe(_ name: String, _ value: Double, buckets: [Double] = Metrics.latencyBuckets) {
        let keys = histogramKeys.withLock { cache -> HistogramKeys in
            if let k = cache[name], k.bounds == buckets { return k }
            let k = HistogramKeys(name: name, bounds: buckets)
            cache[name] = k
            return k
        }
        counters.withLock { c in
            for (i, bound) in buckets.enumerated() where value <= bound { c[keys.buckets[i], default: 0] += 1 }
            c[keys.infinity, default: 0] += 1
            c[keys.sum, default: 0] += value
            c[keys.count, default: 0] += 1
        }
    }

    private struct HistogramKeys {
        let bounds: [Double]
        let buckets: [Series]
        let infinity, sum, count: Series
        init(name: String, bounds: [Double]) {
            self.bounds = bounds
            buckets = bounds.map { Series(name: name + "_bucket", labels: Metrics.render([("le", String($0))])) }
            infinity = Series(name: name + "_bucket", labels: Metrics.render([("le", "+Inf")]))
            sum = Series(name: name + "_sum", labels: "")
            count = Series(name: name + "_count", labels: "")
        }
    }
    private let histogramKeys = Mutex<[String: HistogramKeys]>([:])

    /// A series named once, for counters bumped on a hot path (per APNs answer): no label rendering or
    /// string building per increment.
    public struct Key: Sendable {
        fileprivate let series: Series
    }

    public func key(_ name: String, _ labels: [(String, String)] = []) -> Key {
        Key(series: Series(name: name, labels: Self.render(labels)))
    }

    public func increment(_ key: Key, by value: Double = 1) {
        counters.withLock { $0[key.series, default: 0] += value }
    }

    public func set(_ name: String, _ value: Double) {
        counters.withLock { $0[Series(name: name, labels: "")] = value }
    }

    public func value(_ name: String, _ labels: [(String, String)] = []) -> Double {
        counters.withLock { $0[Series(name: name, labels: Self.render(labels))] ?? 0 }
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
        let snapshot = counters.withLock { $0 }
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
