import Foundation

/// Lifecycle of a push. `scheduled` waits for `sendAt`; `queued` waits for fan-out; `sending` has delivery
/// rows in flight; `done`, `cancelled` and `failed` are final.
public enum PushStatus: String, Sendable, CaseIterable {
    case scheduled, queued, sending, done, cancelled, failed

    public var isFinal: Bool { self == .done || self == .cancelled || self == .failed }
}

/// A push as stored: the validated request (JSON text, so fan-out can resume after a restart) plus progress.
public struct PushRecord: Sendable, Equatable {
    public var id: String
    public var appID: String
    public var idempotencyKey: String?
    /// The normalized request, as JSON text.
    public var request: String
    public var status: PushStatus
    public var createdAt: Date
    public var updatedAt: Date
    public var sendAt: Date?
    public var expiresAt: Date?
    public var finishedAt: Date?
    public var fanoutCursor: Int64
    public var fanoutDone: Bool
    public var counts: PushCounts
    public var errorCode: String?
    public var errorMessage: String?

    public init(id: String, appID: String, idempotencyKey: String?, request: String, status: PushStatus,
                createdAt: Date, sendAt: Date?, expiresAt: Date?) {
        self.id = id; self.appID = appID; self.idempotencyKey = idempotencyKey; self.request = request
        self.status = status; self.createdAt = createdAt; self.updatedAt = createdAt; self.sendAt = sendAt
        self.expiresAt = expiresAt; self.finishedAt = nil; self.fanoutCursor = 0; self.fanoutDone = false
        self.counts = PushCounts(); self.errorCode = nil; self.errorMessage = nil
    }
}

/// Counters kept on the push row, updated in the same transaction as the deliveries they count.
public struct PushCounts: Sendable, Equatable {
    public var targeted = 0
    public var sent = 0
    public var failed = 0
    public var retired = 0
    public var opened = 0
    public var cancelled = 0
    public init() {}
}
