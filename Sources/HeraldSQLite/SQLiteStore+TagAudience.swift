import HeraldStore

extension SQLiteStore {
    /// A whole-app audience that only members of one tag can be in walks that tag's entries (the
    /// `installation_tags` key is app, tag, seq: already in seq order) rather than every installation of the
    /// app. Walking the app cost its whole size per page when the tag is rare: a push to a tag nobody has
    /// read all 1,000,000 rows of a large app on the writer, and held every other write back meanwhile.
    /// ?9 is the tag; the other parameters and conditions are `audienceAll`'s.
    static let audienceByTag = """
        SELECT i.seq, i.id, i.device_token, i.environment, i.locale, i.time_zone, i.app_version, i.properties
        FROM installation_tags d CROSS JOIN installations i
        WHERE d.app_id = ?1 AND d.tag = ?9 AND d.seq > ?2 AND i.seq = d.seq AND
        """ + " " + audienceConditions + " AND ?7 IS NULL ORDER BY d.seq LIMIT ?8"

    /// The tag every member of the selector's audience carries, if there is one: the first of `tagsAll`, or
    /// the only one of `tagsAny`. With several `tagsAny` the app's rows are walked as before.
    static func requiredTag(_ selector: AudienceSelector) -> String? {
        guard selector.source == .all else { return nil }
        if let tag = selector.tagsAll?.first { return tag }
        if let any = selector.tagsAny, any.count == 1 { return any[0] }
        return nil
    }
}
