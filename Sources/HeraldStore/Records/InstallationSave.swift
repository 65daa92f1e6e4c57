/// A save whose changes depend on the installation it changes: LeanCloud's `_Installation`, where `Increment`
/// adds to the stored badge, `AddUnique` and `Remove` change the stored channels, and custom columns merge
/// into the stored properties. The store finds the installation and builds the draft from it inside the
/// write's own transaction (`HeraldStorage.saveInstallation`), so two saves of one installation cannot both
/// start from the same badge or tags, and a save costs no read of its own before its write.
public struct InstallationSave: Sendable {
    /// Tried in order, each as Herald's id, then as the app's installation id.
    public var ids: [String]
    /// Then the active installation holding this token. An inactive one is not found: with nothing found the
    /// save registers `draft`, which revives the row holding its token.
    public var activeToken: String?
    /// The save names one installation (LeanCloud's `PUT .../{objectId}`): with nothing found it fails with
    /// `StoreError.notFound` instead of creating one. A draft with neither installation id nor token, which
    /// cannot create one, fails the same way.
    public var mustExist: Bool
    /// The draft as if nothing were found, written when nothing is.
    public var draft: InstallationDraft
    /// The draft for the installation found (read with its tags). Its installation id and device token are
    /// `draft`'s whatever it returns: a store may lock those before it looks anything up.
    public var merge: @Sendable (InstallationRecord) throws -> InstallationDraft

    public init(ids: [String], activeToken: String?, mustExist: Bool, draft: InstallationDraft,
                merge: @escaping @Sendable (InstallationRecord) throws -> InstallationDraft) {
        self.ids = ids
        self.activeToken = activeToken
        self.mustExist = mustExist
        self.draft = draft
        self.merge = merge
    }

    /// What to write and how `upsertInstallation` finds it again, from the row `find` (by id or installation
    /// id) or `findActive` (by token) returns; both stores call it inside their write.
    public func resolve(find: (String) throws -> InstallationRecord?,
                        findActive: (String) throws -> InstallationRecord?) throws -> (draft: InstallationDraft, match: InstallationMatch) {
        var found: InstallationRecord?
        for id in ids where found == nil { found = try find(id) }
        if found == nil, let activeToken { found = try findActive(activeToken) }
        guard let found else {
            guard !mustExist, draft.installationID != nil || draft.deviceToken != nil else { throw StoreError.notFound }
            return (draft, .installationIDOrToken)
        }
        var merged = try merge(found)
        merged.installationID = draft.installationID
        merged.deviceToken = draft.deviceToken
        return (merged, .existing(found.id))
    }
}
