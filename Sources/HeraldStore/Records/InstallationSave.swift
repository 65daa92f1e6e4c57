/// A save whose changes depend on the installation it changes: LeanCloud's `_Installation`, where `Increment`
/// adds to the stored badge, `AddUnique` and `Remove` change the stored channels, and custom columns merge
/// into the stored properties. The store finds the installation and builds the draft from it inside the
/// write's own transaction (`HeraldStorage.saveInstallation`), so two saves of one installation cannot both
/// start from the same badge or tags, and a save costs no read of its own before its write.
public struct InstallationSave: Sendable {
    /// Tried in order, each as Herald's id, then as the app's installation id.
    public var ids: [String]
    /// Then the active installation holding this token. An inactive one is not found: with nothing found the
    /// save registers its draft, which revives the row holding its token.
    public var activeToken: String?
    /// The save names one installation (LeanCloud's `PUT .../{objectId}`): with nothing found it fails with
    /// `StoreError.notFound` instead of creating one. A save whose keys are both nil, which cannot create
    /// one, fails the same way.
    public var mustExist: Bool
    /// The installation id and device token the save writes, whatever `merge` returns: a store may lock
    /// them before it looks anything up.
    public var installationID: String?
    public var deviceToken: String?
    /// The draft for the installation found (read with its tags), or for a new one when nothing is found.
    public var merge: @Sendable (InstallationRecord?) throws -> InstallationDraft

    public init(ids: [String], activeToken: String?, mustExist: Bool, installationID: String?, deviceToken: String?,
                merge: @escaping @Sendable (InstallationRecord?) throws -> InstallationDraft) {
        self.ids = ids
        self.activeToken = activeToken
        self.mustExist = mustExist
        self.installationID = installationID
        self.deviceToken = deviceToken
        self.merge = merge
    }

    /// The save's keys as a draft (what a store locks before it looks anything up).
    public var keys: InstallationDraft { InstallationDraft(installationID: installationID, deviceToken: deviceToken) }

    /// What to write, and the installation it changes (nil: register the draft), from the row `find` (by id or
    /// installation id) or `findActive` (by token) returns; both stores call it inside their write.
    public func resolve(find: (String) throws -> InstallationRecord?,
                        findActive: (String) throws -> InstallationRecord?) throws -> (draft: InstallationDraft, found: InstallationRecord?) {
        var found: InstallationRecord?
        for id in ids where found == nil { found = try find(id) }
        if found == nil, let activeToken { found = try findActive(activeToken) }
        if found == nil, mustExist || (installationID == nil && deviceToken == nil) { throw StoreError.notFound }
        var draft = try merge(found)
        draft.installationID = installationID
        draft.deviceToken = deviceToken
        return (draft, found)
    }
}
