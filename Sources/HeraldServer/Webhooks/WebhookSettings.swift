/// The `webhooks.*` keys (docs/webhooks.md#configuration): how events are sent to webhooks and retried.
public struct WebhookSettings: Sendable {
    /// `webhooks.timeout` seconds for one POST, from connecting to the end of the answer; past it the attempt failed.
    public var timeout: Double = 10
    /// `webhooks.retryBase` / `webhooks.retryCap` seconds: attempt n waits between half and all of min(cap, base·2ⁿ⁻¹).
    public var retryBase: Double = 5
    public var retryCap: Double = 1800
    /// `webhooks.maxAge` seconds: a delivery whose oldest event is older than this is given up after its next failure.
    public var maxAge: Double = 86_400
    /// `webhooks.disableAfter`: deliveries given up in a row that disable the webhook.
    public var disableAfter: Int = 5
    /// `webhooks.caFile`: CAs to trust for https receivers instead of the system's.
    public var caFile: String?
    /// `webhooks.allowHttp`: allow http:// URLs on any host (without it only localhost may use http).
    public var allowHttp = false
    /// `webhooks.pollInterval` seconds between looks at the outbox when idle.
    public var pollInterval: Double = 1
    /// `webhooks.concurrency`: POSTs in flight at once (each to a different webhook, or pings and redeliveries).
    public var concurrency: Int = 4
    /// `webhooks.keepAlive` seconds an idle connection to a receiver stays open for the next POST; 0: a
    /// connection per POST. Below the 5 s after which Node.js and Apache close idle connections, so a POST
    /// rarely meets one its receiver is closing.
    public var keepAlive: Double = 4

    public init() {}

    /// Events per POST (the `{"events": [...]}` body holds 1 to this many).
    public static let batchSize = 100
}
