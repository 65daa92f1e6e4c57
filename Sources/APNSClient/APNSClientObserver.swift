import APNSCore

/// Hooks for metrics. Called on I/O threads: keep them quick (increment a counter).
public protocol APNSClientObserver: Sendable {
    /// A request went out (retries count again).
    func sent()
    /// APNs accepted a notification; `latency` from first send to answer, in seconds.
    func accepted(latency: Double)
    /// APNs refused a notification with `reason` (nil when the body had none).
    func rejected(status: Int, reason: APNSReason?, latency: Double)
    /// A request failed without an APNs answer (connection lost, timeout) after its retries.
    func failed(_ error: APNSClientError)
    func connectionOpened()
    func connectionClosed()
    func connectionFailed()
    /// A probe (one request alone on an empty wire) was answered in `probeSeconds`, and the in-flight window is
    /// now `window` (`APNSClient.Configuration.minInFlight`).
    func windowSized(_ window: Int, probeSeconds: Double)
}

extension APNSClientObserver {
    public func sent() {}
    public func accepted(latency: Double) {}
    public func rejected(status: Int, reason: APNSReason?, latency: Double) {}
    public func failed(_ error: APNSClientError) {}
    public func connectionOpened() {}
    public func connectionClosed() {}
    public func connectionFailed() {}
    public func windowSized(_ window: Int, probeSeconds: Double) {}
}

struct NoObserver: APNSClientObserver {}
