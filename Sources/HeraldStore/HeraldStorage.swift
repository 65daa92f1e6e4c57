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
}

/// A running `watchForWork`; `stop()` ends it and waits until `onWork` is no longer called.
public protocol WorkWatch: Sendable {
    func stop() async
}
