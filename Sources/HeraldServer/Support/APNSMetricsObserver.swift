import APNSClient
import APNSCore

/// Feeds the APNs client's hooks into the service's Prometheus metrics.
struct APNSMetricsObserver: APNSClientObserver {
    let metrics: Metrics

    func sent() { metrics.increment("herald_apns_requests_total") }

    func accepted(latency: Double) {
        metrics.increment("herald_apns_responses_total", [("status", "200"), ("reason", "")])
        metrics.observe("herald_apns_latency_seconds", latency)
    }

    func rejected(status: Int, reason: APNSReason?, latency: Double) {
        metrics.increment("herald_apns_responses_total", [("status", String(status)), ("reason", reason?.rawValue ?? "")])
        metrics.observe("herald_apns_latency_seconds", latency)
    }

    func failed(_ error: APNSClientError) { metrics.increment("herald_apns_failures_total") }
    func connectionOpened() { metrics.increment("herald_apns_connections_total", [("event", "opened")]) }
    func connectionClosed() { metrics.increment("herald_apns_connections_total", [("event", "closed")]) }
    func connectionFailed() { metrics.increment("herald_apns_connections_total", [("event", "failed")]) }
}
