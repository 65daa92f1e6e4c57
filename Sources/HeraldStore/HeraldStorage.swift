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

    // MARK: - Compatibility identities (LeanCloud, JPush)
    /// Stores the app's identity for `provider`, replacing the one it had, in one transaction. Throws
    /// `StoreError.conflict` (and changes nothing) when another app already uses `publicID` for that provider.
    func saveCompatIdentity(_ identity: CompatIdentityRecord) async throws
    /// The identity a request names by its public id; nil when no app has it.
    func compatIdentity(provider: String, publicID: String) async throws -> CompatIdentityRecord?
    func compatIdentity(appID: String, provider: String) async throws -> CompatIdentityRecord?
    /// False when the app had no identity for `provider`. Deleting the app deletes its identities too.
    func deleteCompatIdentity(appID: String, provider: String) async throws -> Bool

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
}
