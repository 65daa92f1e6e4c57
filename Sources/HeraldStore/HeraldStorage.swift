import Foundation

/// Everything the provider service stores, as one protocol, implemented by `SQLiteStore` (embedded, the
/// default) and `PostgresStore` (HeraldPostgres; claims with `FOR UPDATE SKIP LOCKED`). One conformance suite
/// (Tests/HeraldStoreTests/StorageConformanceTests.swift) runs against both.
///
/// What holds for every method, unless its own comment says otherwise:
/// - **Atomic.** Each call is one transaction: it happens whole or not at all. A throw means nothing was
///   written (`StoreError.storageFull` included: what was stored before stays intact).
/// - **Durable when it returns.** A write that returned survives the process being killed (SQLite commits to
///   its WAL with `synchronous = NORMAL`; PostgreSQL commits with its own durability settings).
/// - **Consistent reads.** A read sees one committed snapshot, never part of a concurrent write.
/// - **Scoped.** Methods taking `appID` never see or change another app's rows; an id of another app is
///   treated as absent.
/// - **Clock-free.** Times are passed in, never read from the system clock, so tests and nodes agree.
/// - **Errors.** `StoreError.notFound` for a missing row the call needs, `.conflict` for a request that clashes
///   with stored data (the service layer maps them to 404 and 409).
public protocol HeraldStorage: Sendable {
    /// The highest migration applied; opening a store applies the missing ones (once, even with several nodes).
    func schemaVersion() async throws -> Int
    /// Throws when the store cannot be reached (readiness checks).
    func ping() async throws
    /// Nil while writes succeed. After a write failed for lack of space (`StoreError.storageFull`), that
    /// failure, until the store finds it has room again; cheap while no write has failed.
    func checkStorage() async -> StoreError?

    // MARK: - Apps, keys, credentials
    /// Stores the app and its first keys together. An id already used throws (nothing stored).
    func createApp(_ app: AppRecord, keys: [APIKeyRecord]) async throws
    func app(id: String) async throws -> AppRecord?
    /// Every app, oldest first (ties by id).
    func apps() async throws -> [AppRecord]
    /// Replaces the app's mutable fields (name, topic, time zone, rate limit, pause) with `app`'s; last write wins.
    func updateApp(_ app: AppRecord) async throws
    /// Deletes the app with everything it owns (keys, credentials, installations, tags, pushes, deliveries,
    /// opens, identities). False when there was no such app.
    func deleteApp(id: String) async throws -> Bool
    /// Sets (reason and time) or, with nil, lifts the app's delivery pause. Idempotent.
    func setAppPaused(id: String, reason: String?, at: Date?) async throws
    func insertKey(_ key: APIKeyRecord) async throws
    /// The key whose SHA-256 is `hash`, revoked or not (the caller checks `revokedAt` and compares in constant time).
    func key(hash: [UInt8]) async throws -> APIKeyRecord?
    /// The app's keys, or with nil the admin keys, oldest first, revoked ones included.
    func keys(appID: String?) async throws -> [APIKeyRecord]
    /// Revokes the app's (or, with no app, the admin) keys of `scope` and stores `newKey`, atomically: there is
    /// no moment with both or neither valid.
    func rotateKey(_ newKey: APIKeyRecord, revokingScope scope: KeyScope, at: Date) async throws
    /// Stores (or replaces) the credential of the app's environment; also lifts a credential pause on the app,
    /// in the same transaction.
    func saveCredential(_ credential: CredentialRecord) async throws
    /// The app's credentials, sealed, in environment order.
    func credentials(appID: String) async throws -> [CredentialRecord]
    func deleteCredential(appID: String, environment: String) async throws -> Bool

    // MARK: - Installations
    /// Found by Herald id first, then by the app's installation id; with its tags.
    func installation(appID: String, id: String) async throws -> InstallationRecord?
    /// Creates or updates one installation. `match` says how an existing row is found (`.existing(id)`, or by
    /// installation id then device token, so a reinstall that kept its token adopts the old row); a new row gets
    /// `newID`. Only the draft's non-nil fields change; `tags` replaces the set. Registering a token reactivates
    /// the row and restarts its 410 clock, and any other row of the app holding the same token is deactivated
    /// ("Replaced") in the same transaction: one token, one active installation. Changing the installation id
    /// to one another row has throws `.conflict`. Idempotent: the same draft twice leaves the same row.
    func upsertInstallation(appID: String, draft: InstallationDraft, match: InstallationMatch, newID: String,
                            now: Date) async throws -> (InstallationRecord, created: Bool)
    /// A save built from the installation it changes (`InstallationSave`): one transaction finds the
    /// installation, builds the draft with `save.merge`, and writes as `upsertInstallation` does (`.existing`
    /// when one was found, else registering the draft). Concurrent saves of one installation each start from
    /// the other's result.
    func saveInstallation(appID: String, _ save: InstallationSave, newID: String, now: Date) async throws -> (InstallationRecord, created: Bool)
    /// How many installations an importer gives `importInstallations` at a time: what one transaction of an
    /// import writes, and so what registrations that wait for it wait behind.
    var importBatchSize: Int { get }
    /// The part of an import batch's work that needs no database (building rows, encoding them), done
    /// ahead of `importInstallations` and on the caller's thread, so that an importer can do it while the
    /// previous batch is written. Reads and writes nothing; a store with nothing to do ahead keeps the drafts.
    func prepareImport(appID: String, drafts: [InstallationDraft], newIDs: [String], now: Date) -> PreparedImport
    /// `upsertInstallation` for each draft of the batch (matched by installation id then token), in order, all
    /// in one transaction: a batch is stored whole or not at all, and visible to every reader once this
    /// returns. (One exception, on PostgreSQL: a large batch of new installations only is written in two
    /// halves on two connections, and if the database is lost between their two commits the second half,
    /// whole, stays; sending the batch again completes it. `PostgresStore.insertNewInHalves`.) It may not be
    /// on disk yet: a store may commit import batches without waiting for the disk, and waits once, in
    /// `installationsImported`, for all of them. Returns how many rows were created and updated.
    func importInstallations(_ batch: PreparedImport) async throws -> (created: Int, updated: Int)
    /// Says that an import has ended, whole or broken off, after writing some installations. Once this returns,
    /// every batch `importInstallations` returned is durable (it survives a crash of the database server);
    /// an error means that may not be so. With `refreshingStatistics` (a large import), a store whose query
    /// planner works from table statistics also refreshes them, best effort, so that the next push's audience
    /// queries are planned for the rows that are there rather than for the table before the import.
    func installationsImported(refreshingStatistics: Bool) async throws
    /// Deletes the installation and its tags (its past deliveries stay, for the pushes' records).
    func deleteInstallation(appID: String, id: String) async throws -> Bool
    /// Adds and removes tags (removals first; adding a tag it has is a no-op) and touches `updatedAt`.
    /// Throws `.notFound` for an unknown installation.
    func updateTags(appID: String, id: String, add: [String], remove: [String], now: Date) async throws -> InstallationRecord
    /// One page in `seq` (registration) order after `query.afterSeq`, every set filter applied; stable under
    /// concurrent registrations (new rows come after the cursor).
    func installations(appID: String, query: InstallationQuery) async throws -> [InstallationRecord]
    /// Tags with how many installations carry each, in byte order after `after`.
    func tags(appID: String, after: String?, limit: Int) async throws -> [(tag: String, count: Int)]
    /// Aliases with how many installations carry each, in byte order after `after`.
    func aliases(appID: String, after: String?, limit: Int) async throws -> [(alias: String, count: Int)]
    /// Removes the tag from every installation of the app; returns how many lost it.
    func removeTagEverywhere(appID: String, tag: String) async throws -> Int
    /// All of the app's installations, active or not.
    func installationCount(appID: String) async throws -> Int

    // MARK: - Pushes
    /// Stores a new push, unless the app already has a push with the same idempotency key created at or after
    /// `idempotentSince`: then that push is returned and nothing is stored (`created` false). Two concurrent
    /// calls with one key store one push. `.notFound` when the app does not exist (deleted meanwhile).
    /// `reaching`: a new push is stored only if this audience reaches an installation, checked in the
    /// insert's transaction (`AudienceReachesNoOne` otherwise); a caller that refuses pushes to no one
    /// (JPush's 1011) then needs no read of its own before the insert.
    func insertPush(_ push: PushRecord, idempotentSince: Date, reaching: AudienceSelector?) async throws -> (PushRecord, created: Bool)
    func push(appID: String, id: String) async throws -> PushRecord?
    func push(id: String) async throws -> PushRecord?
    /// Newest first (ties by id), created before `before`; `status` narrows to one state.
    func pushes(appID: String, status: PushStatus?, before: Date?, limit: Int) async throws -> [PushRecord]
    /// Failed deliveries of the push counted by APNs reason (or Herald's own, such as `Expired`).
    func failureReasons(pushID: String) async throws -> [String: Int]
    /// Moves every scheduled push whose `sendAt` has come to `queued`, in one statement: a push is promoted
    /// once however many callers race. Returns how many were promoted.
    func promoteScheduled(now: Date) async throws -> Int
    /// Pushes with work left (queued or sending), oldest first.
    func activePushes() async throws -> [PushRecord]
    /// Cancels a push that has not finished: pending deliveries become cancelled (counted); in-flight ones
    /// finish and are recorded. Nil for an unknown push; `.conflict` for one already finished.
    func cancelPush(appID: String, id: String, now: Date) async throws -> PushRecord?
    /// Ends a push as failed with `code` and `message`, cancelling its pending deliveries. No effect on a push
    /// that already finished (done, cancelled, failed): the first ending wins.
    func failPush(id: String, code: String, message: String, now: Date) async throws
    /// Marks the push done when its fan-out is complete and no delivery is pending or in flight; true when
    /// this call did it (so exactly one caller sees true).
    func finishIfComplete(pushID: String, now: Date) async throws -> Bool
    /// Records an open once per (push, installation) and counts it; false for a repeat. `.notFound` when the
    /// push or the installation is not the app's.
    func recordOpen(appID: String, pushID: String, installationID: String, now: Date) async throws -> Bool
    /// Deletes up to `limit` finished pushes (with their deliveries, failures and opens) that finished before
    /// `before`; returns how many.
    func purgeFinishedPushes(before: Date, limit: Int) async throws -> Int

    // MARK: - Delivery queue
    // A push's audience is read in keyset pages (`seq` order, `after` the last seq seen), so a page costs its
    // own size whatever the registry's. Deliveries move pending → in flight (claimed, named with the claiming
    // node) → sent, failed or cancelled; every change of a push's counters is in the transaction that changes
    // the rows it counts.

    /// The listed tokens, ids, aliases or user ids that match no active installation with a token (at most
    /// `limit`), so a caller learns which targets were not reached without the push failing. A read.
    func unresolvedTargets(appID: String, source: AudienceSelector.Source, limit: Int) async throws -> [String]
    /// One page of the audience (active installations with a token matching the selector) after seq `after`,
    /// in seq order. A read; writes nothing (dry runs, counts, and pages that are sent before they are written).
    func audience(appID: String, selector: AudienceSelector, after: Int64, limit: Int) async throws -> [AudienceMember]
    /// One fan-out step, atomically: reads the page after the push's cursor, lets `plan` choose the deliveries,
    /// applies the badge change to each member, inserts the rows (up to `claim` due ones directly in flight,
    /// returned as `claimDeliveries` would) and advances the cursor. A crash between steps loses nothing and
    /// duplicates nothing: the cursor moves with the rows.
    func fanOut(pushID: String, selector: AudienceSelector, badge: BadgeChange?, limit: Int, claim: Int, now: Date,
                plan: @escaping @Sendable ([AudienceMember]) -> [PlannedDelivery]) async throws -> FanOutProgress
    /// Moves up to `limit` due pending deliveries of the push to in flight (claimed by this store's node) and
    /// returns them. A row is claimed by one caller only (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
    func claimDeliveries(pushID: String, limit: Int, now: Date) async throws -> [ClaimedDelivery]
    /// The earliest time a pending delivery of the push becomes due, if any. A read.
    func nextDue(pushID: String) async throws -> Date?
    /// Records the outcomes of a batch of in-flight deliveries with the push's counters and failure reasons,
    /// retires installations APNs said are gone (unless their token was registered after APNs' timestamp),
    /// and writes the events webhooks subscribe to, all in one transaction. An outcome for a row no longer in
    /// flight (recorded already, or rescued and sent again) changes nothing: counts never double.
    func recordOutcomes(pushID: String, outcomes: [DeliveryOutcome], now: Date) async throws -> (sent: Int, failed: Int, retired: Int)
    /// Writes a page that was read with `audience` and then sent: each member's row once, with its outcome (or
    /// pending), the cursor and the counters, atomically. Only a page starting at the push's cursor is written;
    /// any other (already written, or read before an unwritten one) changes nothing and returns false.
    func recordPage(pushID: String, after: Int64, cursor: Int64, done: Bool, badge: Int?, rows: [PageDelivery], now: Date) async throws -> Bool
    /// Returns every in-flight delivery to pending (one node per SQLite file, at start and at a clean stop);
    /// nothing claimed is lost. Returns how many.
    func releaseInFlight() async throws -> Int
    /// A page of the push's deliveries after id `afterID`, in id order, optionally in one state. A read.
    func deliveries(pushID: String, state: DeliveryState?, afterID: Int64, limit: Int) async throws -> [DeliveryRecord]
    /// Pending deliveries across all pushes (the queue depth metric). A read.
    func pendingDeliveryCount() async throws -> Int

    // MARK: - Compatibility identities (LeanCloud, JPush)
    /// Stores the app's identity for `provider`, replacing the one it had, in one transaction. Throws
    /// `StoreError.conflict` (and changes nothing) when another app already uses `publicID` for that provider.
    func saveCompatIdentity(_ identity: CompatIdentityRecord) async throws
    /// The identity a request names by its public id; nil when no app has it.
    func compatIdentity(provider: String, publicID: String) async throws -> CompatIdentityRecord?
    func compatIdentity(appID: String, provider: String) async throws -> CompatIdentityRecord?
    /// False when the app had no identity for `provider`. Deleting the app deletes its identities too.
    func deleteCompatIdentity(appID: String, provider: String) async throws -> Bool

    // MARK: - Registry import (ids kept from another system)
    /// Which of `ids` are already the id of an installation, in any app (installation ids are unique across
    /// the store). An import that keeps the ids another system gave (LeanCloud's objectIds) asks this first
    /// and gives the taken ones a new id, so a batch never fails on a duplicate. A read; no order.
    func installationIDsInUse(_ ids: [String]) async throws -> Set<String>

    // MARK: - JPush schedules
    /// Stores the schedule, replacing the one with the same app and id (its `createdAt` is kept), in one transaction.
    func saveJPushSchedule(_ schedule: JPushScheduleRecord) async throws
    func jpushSchedule(appID: String, id: String) async throws -> JPushScheduleRecord?
    /// The app's schedules, oldest first (then by id), at most `limit` after skipping `offset`.
    func jpushSchedules(appID: String, offset: Int, limit: Int) async throws -> [JPushScheduleRecord]
    func jpushScheduleCount(appID: String) async throws -> Int
    /// False when there was no such schedule. Deleting the app deletes its schedules too.
    func deleteJPushSchedule(appID: String, id: String) async throws -> Bool

    // MARK: - Nodes and leases (several `herald serve` nodes on one database)
    // A node is one process. Every claim made through a store (a delivery in flight, the fan-out of a
    // push) is recorded under the store's `node`, and lasts while that node's lease does: a live node renews
    // its lease, and once it expires another node rescues the work. Times come from the nodes' clocks,
    // which must agree to well within a lease (NTP).

    /// The node claims made through this store are recorded under (`NodeIdentity.make`).
    var node: String { get }
    /// True when other nodes may share the database (PostgreSQL): claims then go by leases, and only the
    /// holder of the `scheduler` lease promotes and rescues. False for SQLite (one node per file; a start
    /// returns whatever is in flight with `releaseInFlight`).
    var isShared: Bool { get }
    /// Registers this node or extends its lease to `until`, in one statement. `wasRegistered` is false on
    /// the first call and after the node's work was rescued. Idempotent.
    func renewNode(now: Date, until: Date) async throws -> NodeRenewal
    /// Takes the named lease for this node until `until`, or extends it, when it is free, expired or
    /// already this node's; returns whether this node holds it. Atomic: two nodes never both hold it.
    func acquireLease(_ name: String, now: Date, until: Date) async throws -> Bool
    /// In one transaction: for every node whose lease expired before `now`, and every node that holds claims
    /// without being registered (a process gone before its first renewal, a tool), returns its in-flight
    /// deliveries to the queue, frees the fan-outs and leases it held, and removes it. A delivery is rescued
    /// once. With `.distantPast`, only the unregistered nodes' claims are rescued.
    func rescueExpiredNodes(now: Date) async throws -> RescueReport
    /// Gives this node's work back at once (a clean stop): its in-flight deliveries to the queue, its
    /// fan-outs and leases free; its registration is removed. Returns the deliveries released.
    func releaseNode(now: Date) async throws -> Int
    /// Takes the fan-out of up to `limit` queued or sending pushes that no node fans out (skipping rows
    /// another node is taking), then returns the ids of every unfinished fan-out that is this node's.
    /// A fan-out belongs to one node at a time, so no page is read and sent by two nodes.
    func claimFanOuts(limit: Int, now: Date) async throws -> Set<String>
    /// Takes the fan-out of one push when no node holds it (or this node does); returns whether it is this node's.
    func claimFanOut(pushID: String, now: Date) async throws -> Bool
    /// The registered nodes, oldest first, with what each holds (for monitoring and tests).
    func nodes() async throws -> [NodeRecord]
    /// Tells the other nodes that work was added (a push accepted or promoted, work rescued). No-op on SQLite.
    func announceWork() async throws
    /// Calls `onWork` (on a thread of the store's) whenever another node announces work, until the returned
    /// watch is stopped. Nil when the store has no other nodes to hear from (SQLite).
    func watchForWork(_ onWork: @escaping @Sendable () -> Void) async throws -> (any WorkWatch)?

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

    // MARK: - Console sessions
    /// Stores a new session (its id hash is unique: a second insert of the same hash throws). Also deletes,
    /// in the same transaction, sessions last seen before `pruneBefore`, so abandoned sessions do not pile up.
    func insertConsoleSession(_ session: ConsoleSessionRecord, pruneBefore: Date) async throws
    /// The session with this id hash; nil when there is none (never opened, signed out or pruned).
    func consoleSession(idHash: [UInt8]) async throws -> ConsoleSessionRecord?
    /// Sets `lastSeenAt` when the session exists; idempotent. Several nodes may touch one session at once:
    /// the latest time wins (never moves backwards).
    func touchConsoleSession(idHash: [UInt8], at: Date) async throws
    /// Deletes the session (sign-out); false when there was none.
    func deleteConsoleSession(idHash: [UInt8]) async throws -> Bool
    /// The app's pushes created at or after `since`, grouped by creation time into intervals of `interval`
    /// seconds aligned on the UNIX epoch, oldest first; intervals without pushes are left out.
    func pushStatistics(appID: String, since: Date, interval: TimeInterval) async throws -> [PushStatisticsBucket]
    /// Active and retired installations of the app (one consistent read).
    func installationCounts(appID: String) async throws -> InstallationCounts

    // MARK: - Console: a device's deliveries, credentials' last APNs answers
    /// A page of the deliveries made to the installation whose registration number is `seq`
    /// (`InstallationRecord.seq`), newest first (by delivery id), with ids below `beforeID` (nil: from the
    /// newest), each with its push; only pushes of the app. A read, indexed by installation, so a page costs
    /// its own size however many deliveries the store holds.
    func installationDeliveries(appID: String, seq: Int64, beforeID: Int64?, limit: Int) async throws -> [InstallationDeliveryRecord]
    /// Merges each outcome into the one stored for its app and environment, in one transaction: a stored time
    /// is replaced only by a later one (nodes flushing out of order never move it back), and the rejection's
    /// reason goes with its time. Outcomes of an app that no longer exists are dropped. Idempotent.
    func recordCredentialOutcomes(_ outcomes: [CredentialOutcomeRecord]) async throws
    /// The outcomes stored for the app, in environment order. Deleting the app deletes them.
    func credentialOutcomes(appID: String) async throws -> [CredentialOutcomeRecord]

    // MARK: - Delivery journal (crash duplicates)
    // A fan-out page read with `audience` is sent before it is written (`recordPage`). So that a crash
    // re-sends only what was on the wire, the engine journals the seqs APNs accepted while the page is
    // out, in small group commits; a fan-out resuming after a crash reads them back and writes those
    // members as sent instead of sending them again. The journal is a hint beside the page: it changes no
    // counter and no delivery row, so a journal write that comes late, twice, or never counts nothing twice.

    /// Journals that APNs accepted the push's members `seqs` (unordered, duplicates allowed) of pages not
    /// yet written. Refuses (returns false, writing nothing) unless the push's fan-out is still this node's
    /// to write, as `recordPage` requires: the push exists, its fan-out is not done, and on a store shared by
    /// several nodes its fan-out is held by this node (`claimFanOuts`). Seqs at or below the push's cursor
    /// (pages already written) are dropped, and so are journal entries the cursor has passed. One transaction.
    func journalAccepted(pushID: String, seqs: [Int64]) async throws -> Bool
    /// The journaled seqs of the push in (`after`, `through`], ascending and distinct. A read.
    func journaledSeqs(pushID: String, after: Int64, through: Int64) async throws -> [Int64]
    /// Seconds between journal commits when `delivery.journalInterval` is not set: what a kill re-sends beyond
    /// the wire is about this much of the fan-out's rate, so each store says how often it can afford to commit.
    var defaultJournalInterval: Double { get }
}

/// A running `watchForWork`; `stop()` ends it and waits until `onWork` is no longer called.
public protocol WorkWatch: Sendable {
    func stop() async
}

extension HeraldStorage {
    public func insertPush(_ push: PushRecord, idempotentSince: Date) async throws -> (PushRecord, created: Bool) {
        try await insertPush(push, idempotentSince: idempotentSince, reaching: nil)
    }

    /// One import batch prepared and written at once, for callers that have nothing to overlap it with.
    public func importInstallations(appID: String, drafts: [InstallationDraft], newIDs: [String], now: Date) async throws -> (created: Int, updated: Int) {
        try await importInstallations(prepareImport(appID: appID, drafts: drafts, newIDs: newIDs, now: now))
    }
}
