/// A JPush `audience` as a Herald `target`. JPush ANDs its keys and ORs the values inside each
/// (`tag_and` ANDs its values, `tag_not` excludes any of them):
///
///     (tag₁ ∨ tag₂) ∧ (tag_and₁ ∧ tag_and₂) ∧ ¬(tag_not₁ ∨ tag_not₂) ∧ (alias₁ ∨ …) ∧ (registration_id₁ ∨ …)
///
/// Herald's target says the same: `aliases` or `installationIds` pick the devices, `tags.any/all/none`
/// narrow them, and when both aliases and registration ids are given `filter.installationIds` keeps only
/// the listed devices among the aliases' ones (`JPushPushAPI` turns those ids into Herald's server ids, which
/// the filter compares). A registration id is the installation's `installationId` (HeraldClient's
/// `registrationID`) or Herald's server id.
enum JPushAudience {
    static let refused: [String: String] = [
        "segment": "JPush user segments are not kept by Herald; send the tags or aliases the segment selects.",
        "abtest": "JPush A/B tests are not supported; send each variant as its own push.",
        "live_activity_id": "Live Activity ids are not supported here; use POST /v1/pushes with pushType liveactivity.",
        "file": "File audiences are not supported; list registration_id or alias values (up to 1000 per push).",
    ]

    static func target(_ audience: JSON?) throws -> [String: JSON] {
        guard let audience else { throw JPushErrors.error(400, 1002, "audience is required: \"all\" or an object with tag, tag_and, tag_not, alias or registration_id.") }
        if audience.stringValue == "all" { return ["all": true] }
        guard let object = audience.objectValue, !object.isEmpty else {
            throw JPushErrors.error(400, 1003, "audience must be \"all\" or an object with tag, tag_and, tag_not, alias or registration_id.")
        }
        for key in object.keys.sorted() {
            if let why = refused[key] { throw JPushErrors.error(400, 1003, "audience.\(key) is refused: \(why)") }
            guard ["tag", "tag_and", "tag_not", "alias", "registration_id"].contains(key) else {
                throw JPushErrors.error(400, 1003, "audience.\(key) is not a JPush audience key; use tag, tag_and, tag_not, alias or registration_id.")
            }
        }
        let tags = try list(object, "tag", max: 20), tagsAnd = try list(object, "tag_and", max: 20), tagsNot = try list(object, "tag_not", max: 20)
        let aliases = try list(object, "alias", max: 1000), ids = try list(object, "registration_id", max: 1000)

        var target: [String: JSON] = [:]
        switch (aliases, ids) {
        case let (a?, i?): target["aliases"] = strings(a); target["filter"] = ["installationIds": strings(i)]
        case let (a?, nil): target["aliases"] = strings(a)
        case let (nil, i?): target["installationIds"] = strings(i)
        case (nil, nil): if tags == nil && tagsAnd == nil { target["all"] = true }   // only tag_not: everyone but them
        }
        var tagRule: [String: JSON] = [:]
        if let tags { tagRule["any"] = strings(tags) }
        if let tagsAnd { tagRule["all"] = strings(tagsAnd) }
        if let tagsNot { tagRule["none"] = strings(tagsNot) }
        if !tagRule.isEmpty { target["tags"] = .object(tagRule) }
        return target
    }

    /// A key's values: a list of non-empty strings (a lone string is taken as a list of one), at most `max`.
    static func list(_ object: [String: JSON], _ key: String, max: Int) throws -> [String]? {
        guard let value = object[key], !value.isNull else { return nil }
        let items = value.arrayValue ?? [value]
        let values = items.compactMap(\.stringValue)
        guard values.count == items.count, !values.isEmpty, values.allSatisfy({ !$0.isEmpty }) else {
            throw JPushErrors.error(400, 1003, "audience.\(key) must be a non-empty array of non-empty strings.")
        }
        guard values.count <= max else { throw JPushErrors.error(400, 1003, "audience.\(key) has \(values.count) values; JPush allows at most \(max).") }
        return values
    }

    static func strings(_ values: [String]) -> JSON { .array(values.map(JSON.string)) }
}
