import APNSClient
import APNSCore

/// Feeds the APNs client's hooks into the service's Prometheus metrics. Called per APNs answer on I/O
/// threads, so the common series are named once.
struct APNSMetricsObserver: APNSClientObserver {
    let metrics: Metrics
    private let requests: Metrics.Key
    private let acceptedAnswers: Metrics.Key
    private let failures: Metrics.Key
    private let opened: Metrics.Key, closed: Metrics.Key, connectFailed: Metrics.Key
    private let latency: Metrics.Histogram
    /// The gauge of the client this observer was made for (`forClient`): each app and environment has a
    /// client, and its window follows its own peer.
    private var window: Metrics.Key

    init(metrics: Metrics) {
        self.metrics = metrics
        requests = metrics.key("herald_apns_requests_total")
        acceptedAnswers = metrics.key("herald_apns_responses_total", [("status", "200"), ("reason", "")])
        failures = metrics.key("herald_apns_failures_total")
        opened = metrics.key("herald_apns_connections_total", [("event", "opened")])
        closed = metrics.key("herald_apns_connections_total", [("event", "closed")])
        connectFailed = metrics.key("herald_apns_connections_total", [("event", "failed")])
        latency = metrics.histogram("herald_apns_latency_seconds")
        window = metrics.key("herald_apns_in_flight_window")
    }

    func sent() { metrics.increment(requests) }

    func accepted(latency: Double) {
        metrics.increment(acceptedAnswers)
        self.latency.observe(latency)
    }

    func rejected(status: Int, reason: APNSReason?, latency: Double) {
        metrics.increment("herald_apns_responses_total", [("status", String(status)), ("reason", reason?.rawValue ?? "")])
        self.latency.observe(latency)
    }

    func failed(_ error: APNSClientError) { metrics.increment(failures) }
    func connectionOpened() { metrics.increment(opened) }
    func connectionClosed() { metrics.increment(closed) }
    func connectionFailed() { metrics.increment(connectFailed) }

    /// Probes answer in a fraction of a millisecond from a peer next door and in tens from APNs.
    static let probeBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]

    func windowSized(_ window: Int, probeSeconds: Double) {
        metrics.set(self.window, Double(window))
        metrics.observe("herald_apns_probe_seconds", probeSeconds, buckets: Self.probeBuckets)
    }
}

extension APNSMetricsObserver: PerClientObserver {
    func forClient(appID: String, environment: String) -> any APNSClientObserver {
        var labelled = self
        labelled.window = metrics.key("herald_apns_in_flight_window", [("app", appID), ("environment", environment)])
        return labelled
    }
}

/// An observer that reports some series per APNs client, that is per app and environment
/// (`APNSClientTransport` makes one client for each).
protocol PerClientObserver: APNSClientObserver {
    func forClient(appID: String, environment: String) -> any APNSClientObserver
}
