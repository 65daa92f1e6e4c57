import Synchronization

/// Counters and gauges rendered in the Prometheus text format. Label sets are small and fixed
/// (route pattern, status, reason), so the map stays bounded.
public final class Metrics: Sendable {
    private struct Series: Hashable { var name: String; var labels: String }
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
        "herald_apns_requests_total": ("counter", "Requests sent to APNs (retries count again)."),
        "herald_apns_responses_total": ("counter", "APNs answers by status and reason."),
        "herald_apns_failures_total": ("counter", "Requests that got no APNs answer (connection lost, timeout)."),
        "herald_apns_connections_total": ("counter", "APNs connections by event (opened, closed, failed)."),
        "herald_apns_latency_seconds": ("histogram", "Time from sending a notification to APNs' answer."),
    ]
    /// Upper bounds of the latency histogram, in seconds.
    static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    private let histograms = Mutex<[String: (buckets: [UInt64], sum: Double, count: UInt64)]>([:])

    /// Records one observation in the histogram `name` (buckets: `latencyBuckets`).
    public func observe(_ name: String, _ value: Double) {
        let i = Self.latencyBuckets.firstIndex { value <= $0 } ?? Self.latencyBuckets.count
        histograms.withLock { h in
            var e = h[name] ?? ([UInt64](repeating: 0, count: Self.latencyBuckets.count + 1), 0, 0)
            e.buckets[i] += 1
            e.sum += value
            e.count += 1
            h[name] = e
        }
    }

    public init() {}

    public func increment(_ name: String, _ labels: [(String, String)] = [], by value: Double = 1) {
        let key = Series(name: name, labels: Self.render(labels))
        counters.withLock { $0[key, default: 0] += value }
    }

    public func set(_ name: String, _ value: Double) {
        counters.withLock { $0[Series(name: name, labels: "")] = value }
    }

    public func value(_ name: String, _ labels: [(String, String)] = []) -> Double {
        counters.withLock { $0[Series(name: name, labels: Self.render(labels))] ?? 0 }
    }

    static func render(_ labels: [(String, String)]) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.map { "\($0.0)=\"\($0.1.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\"" }.joined(separator: ",") + "}"
    }

    /// The exposition text.
    public func text() -> String {
        let snapshot = counters.withLock { $0 }
        var byName: [String: [(String, Double)]] = [:]
        for (series, value) in snapshot { byName[series.name, default: []].append((series.labels, value)) }
        var out = ""
        for name in byName.keys.sorted() {
            if let h = Self.help[name] { out += "# HELP \(name) \(h.help)\n# TYPE \(name) \(h.type)\n" }
            for (labels, value) in byName[name]!.sorted(by: { $0.0 < $1.0 }) {
                let v = value.rounded() == value ? String(Int64(value)) : String(value)
                out += "\(name)\(labels) \(v)\n"
            }
        }
        for (name, h) in histograms.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            if let help = Self.help[name] { out += "# HELP \(name) \(help.help)\n# TYPE \(name) histogram\n" }
            var cumulative: UInt64 = 0
            for (i, bound) in Self.latencyBuckets.enumerated() {
                cumulative += h.buckets[i]
                out += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
            }
            out += "\(name)_bucket{le=\"+Inf\"} \(h.count)\n\(name)_sum \(h.sum)\n\(name)_count \(h.count)\n"
        }
        return out
    }
}
