import HeraldStore

/// The device registry: installations (created or updated from what the app sends), their tags, aliases
/// and queries. Drafts come from `InstallationInput` (already validated); the app is the caller's.
struct InstallationsService: Sendable {
    let env: ServiceEnvironment

    /// Creates the installation, or updates the one with the same installationId (else the same device token),
    /// so an app that reinstalls or gets a new token keeps one row.
    func register(appID: String, _ draft: InstallationDraft) async throws -> (installation: InstallationRecord, created: Bool) {
        guard draft.installationID != nil || draft.deviceToken != nil else {
            throw ServiceError.missing("installationId", "Send installationId (a UUID the app keeps) and/or deviceToken.")
        }
        try Self.checkText(draft)
        let (record, created) = try await env.store.upsertInstallation(appID: appID, draft: draft, match: .installationIDOrToken,
                                                                       newID: InstallationRecord.newID(), now: env.clock.now())
        return (record, created)
    }

    /// One batch of an import, in one transaction. Unlike `register`, an inactive draft (exported inactive)
    /// stays inactive: a retired token must not start getting pushes again because it moved.
    ///
    /// `keepingIDs` (parallel to `drafts`, nil entries allowed) are ids another system gave the
    /// installations (LeanCloud's objectIds): a draft that creates an installation gets its id, so clients
    /// that know it keep it. One already in use (the same export imported into a second app, or twice in
    /// the batch) gets a new id instead; a draft that updates an installation keeps the id that one has.
    func importBatch(appID: String, _ drafts: [InstallationDraft], keepingIDs: [String?] = []) async throws -> (created: Int, updated: Int) {
        guard !drafts.isEmpty else { return (0, 0) }
        try Self.checkKeys(drafts)
        var taken = try await env.store.installationIDsInUse(keepingIDs.compactMap { $0 })
        let newIDs = drafts.indices.map { i -> String in
            guard i < keepingIDs.count, let id = keepingIDs[i], taken.insert(id).inserted else { return InstallationRecord.newID() }
            return id
        }
        return try await env.store.importInstallations(appID: appID, drafts: drafts, newIDs: newIDs, now: env.clock.now())
    }

    /// A batch whose new installations all get new ids, prepared for `importBatch(_:)` without touching the
    /// store (`HeraldStorage.prepareImport`): an importer does this while the previous batch is written.
    func prepareImport(appID: String, _ drafts: [InstallationDraft]) throws -> PreparedImport {
        try Self.checkKeys(drafts)
        return env.store.prepareImport(appID: appID, drafts: drafts, newIDs: drafts.map { _ in InstallationRecord.newID() },
                                       now: env.clock.now())
    }

    /// One prepared batch of an import, in one transaction, as `importBatch(appID:_:keepingIDs:)`.
    func importBatch(_ batch: PreparedImport) async throws -> (created: Int, updated: Int) {
        guard !batch.drafts.isEmpty else { return (0, 0) }
        return try await env.store.importInstallations(batch)
    }

    private static func checkKeys(_ drafts: [InstallationDraft]) throws {
        if let i = drafts.firstIndex(where: { $0.installationID == nil && $0.deviceToken == nil }) {
            throw ServiceError.missing("installationId", "Draft \(i) has neither installationId nor deviceToken.")
        }
        for draft in drafts { try checkText(draft) }
    }

    /// Refuses text holding a NUL character (U+0000), naming its field: no client means to send one, and
    /// PostgreSQL's text cannot store it, so it would fail the write (and an import's whole batch) with a
    /// database error instead of a clear one. Importers call it per line, so such a line is reported
    /// alone. `properties` is stored as JSON text, where a NUL is written escaped, so it is not checked.
    static func checkText(_ draft: InstallationDraft) throws {
        func check(_ field: String, _ text: String??) throws {
            // Over the contiguous bytes: `utf8.contains` steps a String index per byte (5% of an import's parsing).
            guard var text = text ?? nil, text.withUTF8({ $0.contains(0) }) else { return }
            throw ServiceError.invalid(field, "\(field) holds a NUL character (U+0000), which Herald does not store; remove it.")
        }
        try check("installationId", draft.installationID)
        try check("deviceToken", draft.deviceToken)
        try check("environment", draft.environment)
        try check("topic", draft.topic)
        try check("alias", draft.alias)
        try check("userId", draft.userID)
        try check("locale", draft.locale)
        try check("timeZone", draft.timeZone)
        try check("appVersion", draft.appVersion)
        try check("osVersion", draft.osVersion)
        try check("deviceModel", draft.deviceModel)
        try check("inactiveReason", draft.inactive?.reason)
        for (i, tag) in (draft.tags ?? []).enumerated() { try check("tags[\(i)]", tag) }
    }

    /// An import that wrote at least this many installations has the store refresh its planner's
    /// statistics before it answers (`HeraldStorage.installationsImported`); a smaller one changes them too
    /// little to matter, and the database's own autovacuum catches up with those.
    static let importSizeWorthRefreshing = 10_000

    /// Called once an import has stored its batches (all of them, or those before its body broke off), before
    /// it answers: the store makes them durable, which may fail (then so does the import's answer, since
    /// it cannot say they are stored), and refreshes its statistics after a large import.
    func importFinished(written: Int) async throws {
        guard written > 0 else { return }
        try await env.store.installationsImported(refreshingStatistics: written >= Self.importSizeWorthRefreshing)
    }

    /// By Herald's id or the app's installationId.
    func get(appID: String, id: String) async throws -> InstallationRecord {
        guard let r = try await env.store.installation(appID: appID, id: id) else { throw Self.notFound(id) }
        return r
    }

    /// By Herald's id or the app's installationId; nil when the app has no such installation.
    func find(appID: String, id: String) async throws -> InstallationRecord? {
        try await env.store.installation(appID: appID, id: id)
    }

    /// A save built from the installation it changes (LeanCloud's `_Installation`), found and written in one
    /// transaction of the store (`InstallationSave`). Ids that cannot name an installation (empty, or longer
    /// than an id can be) are not looked up. With nothing found, a save that names one installation fails
    /// with notFound, as does a draft with neither installationId nor deviceToken (the caller says why).
    func save(appID: String, _ save: InstallationSave) async throws -> (installation: InstallationRecord, created: Bool) {
        let named = save.ids.first ?? save.activeToken ?? ""
        var save = save
        save.ids = save.ids.filter { !$0.isEmpty && $0.utf8.count <= 128 }
        try Self.checkText(save.keys)
        do {
            return try await env.store.saveInstallation(appID: appID, save, newID: InstallationRecord.newID(), now: env.clock.now())
        } catch StoreError.notFound {
            throw Self.notFound(named)
        }
    }

    /// Changes the fields the draft sets; the others keep their values.
    func update(appID: String, id: String, _ draft: InstallationDraft) async throws -> InstallationRecord {
        try Self.checkText(draft)
        do {
            return try await env.store.upsertInstallation(appID: appID, draft: draft, match: .existing(id), newID: InstallationRecord.newID(), now: env.clock.now()).0
        } catch StoreError.notFound {
            throw Self.notFound(id)
        }
    }

    func delete(appID: String, id: String) async throws {
        guard try await env.store.deleteInstallation(appID: appID, id: id) else { throw Self.notFound(id) }
    }

    func changeTags(appID: String, id: String, _ change: TagChange) async throws -> InstallationRecord {
        do {
            return try await env.store.updateTags(appID: appID, id: id, add: change.add, remove: change.remove, now: env.clock.now())
        } catch StoreError.notFound {
            throw Self.notFound(id)
        }
    }

    /// The cursor is the last row's `seq`; pass it back as `query.afterSeq`.
    func query(appID: String, _ query: InstallationQuery) async throws -> Page<InstallationRecord, Int64> {
        var q = query
        q.deviceToken = try q.deviceToken.map { try Rules.deviceToken($0, field: "deviceToken") }
        return Page(try await env.store.installations(appID: appID, query: q), limit: q.limit) { $0.seq }
    }

    func tags(appID: String, after: String?, limit: Int) async throws -> Page<(tag: String, count: Int), String> {
        Page(try await env.store.tags(appID: appID, after: after, limit: limit), limit: limit) { $0.tag }
    }

    func aliases(appID: String, after: String?, limit: Int) async throws -> Page<(alias: String, count: Int), String> {
        Page(try await env.store.aliases(appID: appID, after: after, limit: limit), limit: limit) { $0.alias }
    }

    /// Removes the tag from every installation of the app; returns how many had it.
    func removeTagEverywhere(appID: String, tag: String) async throws -> Int {
        try await env.store.removeTagEverywhere(appID: appID, tag: tag)
    }

    static func notFound(_ id: String) -> ServiceError { .notFound("Installation \(id)") }
}
