import Foundation

extension InstallationRecord {
    /// A new installation before its draft is applied: the defaults, created at `createdAt` (an import keeps
    /// the exported date) or now.
    public static func new(appID: String, installationID: String, id: String, createdAt: Date?, now: Date) -> InstallationRecord {
        InstallationRecord(
            seq: 0, id: id, appID: appID, installationID: installationID, deviceToken: nil,
            environment: "production", topic: nil, tags: [], alias: nil, userID: nil, locale: nil, timeZone: nil, badge: 0,
            appVersion: nil, osVersion: nil, deviceModel: nil, properties: "{}", active: true, inactiveReason: nil,
            inactiveAt: nil, createdAt: createdAt ?? now, updatedAt: now, lastSeenAt: now, tokenUpdatedAt: now)
    }

    /// The record an upsert answers with, from what it wrote rather than read back (on PostgreSQL a read is
    /// a round trip): the tags it wrote (`written`), in the order both stores list them (once each, in byte
    /// order: SQLite's BINARY collation, PostgreSQL's "C"); an existing record's stored tags (`readTags`)
    /// when it wrote none; a new record without tags has none.
    public func answering(written: Set<String>?, existed: Bool,
                          readTags: (InstallationRecord) throws -> InstallationRecord) rethrows -> InstallationRecord {
        if let written {
            var answer = self
            answer.tags = written.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            return answer
        }
        return existed ? try readTags(self) : self
    }

    /// The draft's fields over the record's, all but the installation id (changing it needs a conflict check)
    /// and the tags (a separate table).
    public mutating func apply(_ draft: InstallationDraft, now: Date) {
        if let token = draft.deviceToken {
            // Registering a token (again) is proof the device is alive: reactivate and restart the 410 clock.
            deviceToken = token
            tokenUpdatedAt = now
            active = true
            inactiveReason = nil
            inactiveAt = nil
        }
        if let inactive = draft.inactive {
            active = false
            inactiveReason = inactive.reason
            inactiveAt = inactive.at ?? now
        }
        if let v = draft.environment { environment = v }
        if let v = draft.topic { topic = v }
        if let v = draft.alias { alias = v }
        if let v = draft.userID { userID = v }
        if let v = draft.locale { locale = v }
        if let v = draft.timeZone { timeZone = v }
        if let v = draft.badge { badge = v }
        if let v = draft.appVersion { appVersion = v }
        if let v = draft.osVersion { osVersion = v }
        if let v = draft.deviceModel { deviceModel = v }
        if let v = draft.properties { properties = v }
        updatedAt = now
        lastSeenAt = now
    }
}
