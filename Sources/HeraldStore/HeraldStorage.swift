import Foundation

/// Everything the provider service stores, as one protocol, implemented by `SQLiteStore` (embedded, the
/// default) and `PostgresStore` (HeraldPostgres; claims with `FOR UPDATE SKIP LOCKED`). One conformance suite
/// (Tests/HeraldStoreTests/StorageConformanceTests.swift) runs against both.
/// Each method is one transaction. Times are passed in, never read from the system clock.
public protocol HeraldStorage: Sendable {
    func schemaVersion() async throws -> Int
    func ping() async throws
    /// Nil while writes succeed. After a write failed for lack of space (`StoreError.storageFull`), that
    /// failure, until the store finds it has room again; cheap while no write has failed.
    func checkStorage() async -> StoreError?

    // Apps, keys, credentials
    func createApp(_ app: AppRecord, keys: [APIKeyRecord]) async throws
    func app(id: String) async throws -> AppRecord?
    func apps() async throws -> [AppRecord]
    func updateApp(_ app: AppRecord) async throws
    func deleteApp(id: String) async throws -> Bool
    func setAppPaused(id: String, reason: String?, at: Date?) async throws
    func insertKey(_ key: APIKeyRecord) async throws
    func key(hash: [UInt8]) async throws -> APIKeyRecord?
    func keys(appID: String?) async throws -> [APIKeyRecord]
    /// Revokes the app's (or, with no app, the admin) keys of `scope` and stores `newKey`, atomically.
    func rotateKey(_ newKey: APIKeyRecord, revokingScope scope: KeyScope, at: Date) async throws
    /// Stores a credential; also lifts a credential pause on the app.
    func saveCredential(_ credential: CredentialRecord) async throws
    func credentials(appID: String) async throws -> [CredentialRecord]
    func deleteCredential(appID: String, environment: String) async throws -> Bool

    // Installations
    func installation(appID: String, id: String) async throws -> InstallationRecord?
    func upsertInstallation(appID: String, draft: InstallationDraft, match: InstallationMatch, newID: String,
                            now: Date) async throws -> (InstallationRecord, created: Bool)
    func importInstallations(appID: String, drafts: [InstallationDraft], newIDs: [String], now: Date) async throws -> (created: Int, updated: Int)
    func deleteInstallation(appID: String, id: String) async throws -> Bool
    func updateTags(appID: String, id: String, add: [String], remove: [String], now: Date) async throws -> InstallationRecord
    func installations(appID: String, query: InstallationQuery) async throws -> [InstallationRecord]
    func tags(appID: String, after: String?, limit: Int) async throws -> [(tag: String, count: Int)]
    func aliases(appID: String, after: String?, limit: Int) async throws -> [(alias: String, count: Int)]
    func removeTagEverywhere(appID: String, tag: String) async throws -> Int
    func installationCount(appID: String) async throws -> Int

    // Pushes
    func insertPush(_ push: PushRecord, idempotentSince: Date) async throws -> (PushRecord, created: Bool)
    func push(appID: String, id: String) async throws -> PushRecord?
    func push(id: String) async throws -> PushRecord?
    func pushes(appID: String, status: PushStatus?, before: Date?, limit: Int) async throws -> [PushRecord]
    func failureReasons(pushID: String) async throws -> [String: Int]
    func promoteScheduled(now: Date) async throws -> Int
    func activePushes() async throws -> [PushRecord]
    func cancelPush(appID: String, id: String, now: Date) async throws -> PushRecord?
    func failPush(id: String, code: String, message: String, now: Date) async throws
    func finishIfComplete(pushID: String, now: Date) async throws -> Bool
    func recordOpen(appID: String, pushID: String, installationID: String, now: Date) async throws -> Bool
    /// Deletes up to `limit` finished pushes (with their deliveries) that finished before `before`.
    func purgeFinishedPushes(before: Date, limit: Int) async throws -> Int

    // Delivery queue
    func unresolvedTargets(appID: String, source: AudienceSelector.Source, limit: Int) async throws -> [String]
    func audience(appID: String, selector: AudienceSelector, after: Int64, limit: Int) async throws -> [AudienceMember]
    func fanOut(pushID: String, selector: AudienceSelector, badge: BadgeChange?, limit: Int, claim: Int, now: Date,
                plan: @escaping @Sendable ([AudienceMember]) -> [PlannedDelivery]) async throws -> FanOutProgress
    func claimDeliveries(pushID: String, limit: Int, now: Date) async throws -> [ClaimedDelivery]
    func nextDue(pushID: String) async throws -> Date?
    func recordOutcomes(pushID: String, outcomes: [DeliveryOutcome], now: Date) async throws -> (sent: Int, failed: Int, retired: Int)
    func recordPage(pushID: String, after: Int64, cursor: Int64, done: Bool, badge: Int?, rows: [PageDelivery], now: Date) async throws -> Bool
    func releaseInFlight() async throws -> Int
    func deliveries(pushID: String, state: DeliveryState?, afterID: Int64, limit: Int) async throws -> [DeliveryRecord]
    func pendingDeliveryCount() async throws -> Int

    // MARK: - Webhooks (events outbox; docs/webhooks.md)
    // Events are written by the methods above, in the transaction of the change they report, for each enabled
    // webhook of the app subscribed to their type: finishIfComplete, failPush, cancelPush (push.*),
    // recordOutcomes and recordPage (installation.retired, delivery.failed), recordOpen (notification.opened),
    // setAppPaused (app.paused, credential.rejected, app.resumed), saveCredential (app.resumed).

    /// Pauses (reason, since `now`) or resumes (nil) an app as `setAppPaused` does, naming the environment whose
    /// credential was rejected in the events it writes.
    func setAppPaused(id: String, reason: String?, environment: String?, now: Date) async throws
    func createWebhook(_ webhook: WebhookRecord) async throws
    func webhooks(appID: String) async throws -> [WebhookRecord]
    func webhook(appID: String, id: String) async throws -> WebhookRecord?
    /// Stores url, events, description, enabled and secret. Enabling a webhook clears its failure run and
    /// disabled reason. False when it does not exist.
    func updateWebhook(_ webhook: WebhookRecord) async throws -> Bool
    /// Deletes the webhook with its undelivered events and its deliveries.
    func deleteWebhook(appID: String, id: String) async throws -> Bool
    /// Queues a ping (no `sourceID`) or a redelivery of `sourceID`'s events, due at `now`. Nil when the webhook,
    /// or the source delivery of that webhook, does not exist.
    func enqueueWebhookDelivery(appID: String, webhookID: String, id: String, sourceID: String?, now: Date) async throws -> WebhookDeliveryRecord?
    /// Claims up to `limit` due deliveries for `owner` until `leaseUntil`, in one transaction. First, for each
    /// enabled webhook with undelivered events and no pending batch, the next batch (up to `batchSize` oldest
    /// events) becomes a delivery: a webhook has at most one batch pending, so its events go out in outbox
    /// order. A delivery whose lease is held by another owner and not expired is never claimed (PostgreSQL:
    /// `FOR UPDATE SKIP LOCKED`), so no two nodes send it at once; a dead node's lease expires.
    func claimWebhookDeliveries(owner: String, limit: Int, batchSize: Int, leaseUntil: Date, now: Date) async throws -> [ClaimedWebhookDelivery]
    /// Records an attempt of a claimed delivery, atomically with its effect: acknowledged → delivered (its
    /// events too; the webhook's failure run ends); else pending again at `retryAt`, or, when nil, failed (its
    /// events stay stored as failed; for a batch of events the failure run grows, and reaching `disableAfter`
    /// disables the webhook). Nil when `owner` no longer holds the lease (the attempt is ignored).
    func recordWebhookAttempt(deliveryID: String, owner: String, attempt: WebhookAttemptRecord, retryAt: Date?,
                              disableAfter: Int, now: Date) async throws -> WebhookAttemptEffect?
    /// The webhook's deliveries, newest first, with their attempts; `before` is the previous page's last id.
    func webhookDeliveries(webhookID: String, before: String?, limit: Int) async throws -> [WebhookDeliveryRecord]
    func webhookQueueStats() async throws -> WebhookQueueStats
    /// Deletes up to `limit` delivered or failed events (and finished deliveries) older than `before`.
    func purgeWebhookEvents(before: Date, limit: Int) async throws -> Int
}
