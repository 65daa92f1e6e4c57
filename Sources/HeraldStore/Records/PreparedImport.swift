import Foundation

/// One batch of an import, with whatever its store could do before touching the database
/// (`HeraldStorage.prepareImport`): an importer prepares the next batch while the previous one is written,
/// so that work overlaps the database's instead of preceding it.
public struct PreparedImport: Sendable {
    public let appID: String
    public let drafts: [InstallationDraft]
    /// The id each draft gets if it creates an installation (parallel to `drafts`).
    public let newIDs: [String]
    public let now: Date
    /// What the store that prepared the batch encoded ahead, in a form only it reads; nil for a store that
    /// encodes nothing ahead. A store given a batch another kind of store prepared encodes it again.
    public let encoded: (any Sendable)?

    public init(appID: String, drafts: [InstallationDraft], newIDs: [String], now: Date, encoded: (any Sendable)? = nil) {
        self.appID = appID
        self.drafts = drafts
        self.newIDs = newIDs
        self.now = now
        self.encoded = encoded
    }
}
