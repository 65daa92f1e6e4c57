import Foundation

/// The kinds of event Herald reports to webhooks. A webhook subscribes to a set of them; `delivery.failed`
/// (one per device) is opt-in, the others are the default subscription.
public enum WebhookEventType: String, Sendable, CaseIterable {
    case pushDone = "push.done"
    case pushFailed = "push.failed"
    case pushCancelled = "push.cancelled"
    case installationRetired = "installation.retired"
    case notificationOpened = "notification.opened"
    case appPaused = "app.paused"
    case appResumed = "app.resumed"
    case credentialRejected = "credential.rejected"
    case deliveryFailed = "delivery.failed"

    /// What a webhook created without `events` subscribes to: everything but the per-device failures.
    public static let defaultSubscription: [WebhookEventType] = allCases.filter { $0 != .deliveryFailed }
}

/// A receiver of an app's events. The secret is sealed with the server's key (it must be readable to sign).
public struct WebhookRecord: Sendable, Equatable {
    public var id: String
    public var appID: String
    public var url: String
    /// Subscribed event types (raw values of `WebhookEventType`).
    public var events: [String]
    public var description: String?
    public var enabled: Bool
    public var sealedSecret: [UInt8]
    /// Deliveries in a row that were given up; reset by an acknowledged delivery or by enabling the webhook.
    public var failureRun: Int
    /// Set when the webhook was disabled because `failureRun` reached the limit; cleared on enabling.
    public var disabledReason: String?
    public var disabledAt: Date?
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: String, appID: String, url: String, events: [String], description: String?, enabled: Bool,
                sealedSecret: [UInt8], failureRun: Int = 0, disabledReason: String? = nil, disabledAt: Date? = nil,
                createdAt: Date, updatedAt: Date) {
        self.id = id; self.appID = appID; self.url = url; self.events = events; self.description = description
        self.enabled = enabled; self.sealedSecret = sealedSecret; self.failureRun = failureRun
        self.disabledReason = disabledReason; self.disabledAt = disabledAt; self.createdAt = createdAt; self.updatedAt = updatedAt
    }
}

/// One POST to a webhook: a batch of its events (`events`), a `ping`, or a `redelivery` of an earlier
/// delivery's events. Retries of a delivery carry the same id.
public struct WebhookDeliveryRecord: Sendable, Equatable {
    public enum Kind: String, Sendable { case events, ping, redelivery }
    public enum State: String, Sendable { case pending, delivered, failed }

    public var id: String
    public var webhookID: String
    public var kind: Kind
    public var state: State
    /// For a redelivery: the delivery whose events it sends again.
    public var sourceID: String?
    public var eventCount: Int
    public var attempts: [WebhookAttemptRecord]
    public var createdAt: Date
    public var nextAttemptAt: Date?
    public var finishedAt: Date?

    public init(id: String, webhookID: String, kind: Kind, state: State, sourceID: String?, eventCount: Int,
                attempts: [WebhookAttemptRecord], createdAt: Date, nextAttemptAt: Date?, finishedAt: Date?) {
        self.id = id; self.webhookID = webhookID; self.kind = kind; self.state = state; self.sourceID = sourceID
        self.eventCount = eventCount; self.attempts = attempts; self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt; self.finishedAt = finishedAt
    }
}

/// What one POST of a delivery got back.
public struct WebhookAttemptRecord: Sendable, Equatable {
    public var number: Int
    public var at: Date
    /// The HTTP status, nil when no answer came (connection refused, timeout, TLS failure).
    public var status: Int?
    /// The first bytes of the answer's body (at most `WebhookAttemptRecord.maxBodyBytes`), as text.
    public var body: String?
    /// Why the attempt failed without an answer.
    public var error: String?
    public var latencyMilliseconds: Int

    /// How much of a receiver's answer is kept.
    public static let maxBodyBytes = 1024

    public init(number: Int, at: Date, status: Int?, body: String?, error: String?, latencyMilliseconds: Int) {
        self.number = number; self.at = at; self.status = status; self.body = body; self.error = error
        self.latencyMilliseconds = latencyMilliseconds
    }

    public var acknowledged: Bool { status.map { (200..<300).contains($0) } ?? false }
}

/// An event as stored in the outbox and sent: `data` is a JSON object's text.
public struct WebhookEvent: Sendable, Equatable {
    public var id: String
    public var type: String
    public var appID: String
    public var createdAt: Date
    public var data: String

    public init(id: String, type: String, appID: String, createdAt: Date, data: String) {
        self.id = id; self.type = type; self.appID = appID; self.createdAt = createdAt; self.data = data
    }
}

/// A delivery claimed by one node (under a lease) to be sent now.
public struct ClaimedWebhookDelivery: Sendable {
    public var delivery: WebhookDeliveryRecord
    public var webhook: WebhookRecord
    /// In outbox order; empty for a ping.
    public var events: [WebhookEvent]
    /// Attempts made before this one.
    public var attemptsMade: Int
    /// When the oldest event of the delivery happened (the delivery's creation for a ping): the retry age counts from it.
    public var since: Date

    public init(delivery: WebhookDeliveryRecord, webhook: WebhookRecord, events: [WebhookEvent], attemptsMade: Int, since: Date) {
        self.delivery = delivery; self.webhook = webhook; self.events = events; self.attemptsMade = attemptsMade; self.since = since
    }
}

/// What became of a delivery after an attempt, as the store applied it.
public enum WebhookAttemptEffect: Sendable, Equatable {
    case delivered(events: Int)
    case retrying(at: Date)
    /// Given up: its events stay stored as failed. `disabled` when this ended the webhook's allowance of failures.
    case failed(events: Int, disabled: Bool)
}

/// The outbox at a glance, for metrics and readiness.
public struct WebhookQueueStats: Sendable, Equatable {
    public var pendingEvents: Int
    public var oldestPending: Date?
    /// Webhooks disabled after a run of failed deliveries: (app, webhook, reason).
    public var disabled: [(appID: String, webhookID: String, reason: String)]

    public init(pendingEvents: Int, oldestPending: Date?, disabled: [(appID: String, webhookID: String, reason: String)]) {
        self.pendingEvents = pendingEvents; self.oldestPending = oldestPending; self.disabled = disabled
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.pendingEvents == b.pendingEvents && a.oldestPending == b.oldestPending
            && a.disabled.map { "\($0.appID)/\($0.webhookID)/\($0.reason)" } == b.disabled.map { "\($0.appID)/\($0.webhookID)/\($0.reason)" }
    }
}

extension WebhookRecord {
    /// The stored subscription list ("push.done,installation.retired") as a set.
    public static func subscription(_ text: String) -> Set<String> { Set(text.split(separator: ",").map(String.init)) }
}

extension WebhookEvent {
    /// Random ids (`evt_…`; `whd_…` for deliveries), so receivers can drop repeats across nodes and restarts.
    public static func newID(prefix: String = "evt_") -> String {
        // 128 random bits as 32 hex digits, without Foundation's string work (this runs per event in a fan-out).
        func hex(_ n: UInt64) -> String {
            let digits = String(n, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return prefix + hex(RandomPool.next()) + hex(RandomPool.next())
    }
}
