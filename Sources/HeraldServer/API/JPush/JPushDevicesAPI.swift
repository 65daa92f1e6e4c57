import Foundation
import HeraldHTTP
import HeraldStore

/// JPush's device API (device.jpush.cn): a device's tags and alias, tag membership, alias lookups. A
/// `registration_id` is the installation's `installationId` (HeraldClient's `registrationID`, what the app
/// uploads); Herald's server id is accepted too. `mobile` (JPush's SMS number) is not kept and reads as null.
struct JPushDevicesAPI {
    let installations: InstallationsService
    let dialect: APIDialect

    var routes: [Route] {
        [
            Route("GET", "/v3/devices/{registration_id}", .master, "JPush-compatible device: {tags, alias, mobile}.", dialect: dialect, handler: device),
            Route("POST", "/v3/devices/{registration_id}", .master, "JPush-compatible device update: tags {add, remove} or \"\" (clear), alias (\"\" clears).", dialect: dialect, handler: updateDevice),
            Route("POST", "/v3/devices/status", .master, "JPush-compatible device status: {registration_ids} → online (always false: APNs devices are not connected to Herald) and last seen.", dialect: dialect, handler: status),
            Route("GET", "/v3/tags", .master, "JPush-compatible tag list (first 100 tags).", dialect: dialect, handler: tags),
            Route("GET", "/v3/tags/{tag}/registration_ids/{registration_id}", .master, "JPush-compatible tag membership: {result}.", dialect: dialect, handler: isTagged),
            Route("POST", "/v3/tags/{tag}", .master, "JPush-compatible tag update: registration_ids {add, remove} (≤1000 each).", dialect: dialect, handler: updateTag),
            Route("DELETE", "/v3/tags/{tag}", .master, "JPush-compatible tag delete: removes the tag from every device.", dialect: dialect, handler: deleteTag),
            Route("GET", "/v3/aliases/{alias}", .master, "JPush-compatible alias lookup: {registration_ids} (at most 10, as JPush).", dialect: dialect, handler: alias),
            Route("DELETE", "/v3/aliases/{alias}", .master, "JPush-compatible alias delete: clears the alias on every device that has it.", dialect: dialect, handler: deleteAlias),
        ]
    }

    static func invalid(_ message: String) -> APIError { JPushErrors.error(400, 7002, message) }

    func device(_ ctx: RequestContext) async throws -> HTTPResponse {
        let record = try await installations.get(appID: try ctx.appID, id: ctx.parameter("registration_id"))
        return .json(200, ["tags": .array(record.tags.map(JSON.string)), "alias": .optional(record.alias), "mobile": .null])
    }

    func updateDevice(_ ctx: RequestContext) async throws -> HTTPResponse {
        let appID = try ctx.appID, id = ctx.parameter("registration_id")
        let body = try ctx.jsonObject()
        for key in body.keys.sorted() where !["tags", "alias", "mobile"].contains(key) {
            throw Self.invalid("\(key) is not a device field; send tags, alias or mobile.")
        }
        let record = try await installations.get(appID: appID, id: id)
        // Validate everything before the first write: a refused request changes nothing.
        var change: TagChange?
        switch body["tags"] {
        case nil, .null?: break
        case .string("")?: if !record.tags.isEmpty { change = try TagChange(remove: record.tags) }
        case .object(let o)?:
            let reader = BodyReader(o, path: "tags")
            try reader.rejectUnknown(["add", "remove"])
            let add = try reader.stringArray("add", maxCount: 100, maxLength: 64) ?? [], remove = try reader.stringArray("remove", maxCount: 100, maxLength: 64) ?? []
            if !add.isEmpty || !remove.isEmpty { change = try TagChange(add: add, remove: remove) }
        default: throw Self.invalid("tags must be {\"add\": [...], \"remove\": [...]} or \"\" to clear them.")
        }
        var alias: String??
        switch body["alias"] {
        case nil, .null?: break
        case .string("")?: alias = .some(nil)
        case .string(let a)?:
            guard a.utf8.count <= 128 else { throw Self.invalid("alias is longer than 128 bytes.") }
            alias = .some(a)
        default: throw Self.invalid("alias must be a string (\"\" clears it).")
        }
        var draft = InstallationDraft()
        draft.alias = alias
        try InstallationsService.checkText(draft)
        if let change { _ = try await installations.changeTags(appID: appID, id: record.id, change) }
        if alias != nil { _ = try await installations.update(appID: appID, id: record.id, draft) }
        return HTTPResponse(status: 200)
    }

    func status(_ ctx: RequestContext) async throws -> HTTPResponse {
        let appID = try ctx.appID
        let ids = try BodyReader(try ctx.jsonObject()).stringArray("registration_ids", maxCount: 1000, maxLength: 128) ?? []
        guard !ids.isEmpty else { throw Self.invalid("registration_ids is required: a list of 1 to 1000 ids.") }
        var out: [String: JSON] = [:]
        for id in ids {
            guard let record = try await installations.find(appID: appID, id: id) else { continue }
            out[id] = ["online": false, "last_online_time": .string(JPushTime.format(record.lastSeenAt))]
        }
        return .json(200, .object(out))
    }

    func tags(_ ctx: RequestContext) async throws -> HTTPResponse {
        let page = try await installations.tags(appID: try ctx.appID, after: nil, limit: 100)
        return .json(200, ["tags": .array(page.items.map { .string($0.tag) })])
    }

    func isTagged(_ ctx: RequestContext) async throws -> HTTPResponse {
        let record = try await installations.get(appID: try ctx.appID, id: ctx.parameter("registration_id"))
        return .json(200, ["result": .bool(record.tags.contains(ctx.parameter("tag")))])
    }

    func updateTag(_ ctx: RequestContext) async throws -> HTTPResponse {
        let appID = try ctx.appID, tag = ctx.parameter("tag")
        guard let ids = try BodyReader(try ctx.jsonObject()).object("registration_ids") else {
            throw Self.invalid("registration_ids is required: {\"add\": [...], \"remove\": [...]}.")
        }
        try ids.rejectUnknown(["add", "remove"])
        let add = try ids.stringArray("add", maxCount: 1000, maxLength: 128) ?? [], remove = try ids.stringArray("remove", maxCount: 1000, maxLength: 128) ?? []
        let adding = try TagChange(add: [tag]), removing = try TagChange(remove: [tag])
        // Every id must exist before any device changes.
        var records: [(String, TagChange)] = []
        for (list, change) in [(add, adding), (remove, removing)] {
            for id in list { records.append((try await installations.get(appID: appID, id: id).id, change)) }
        }
        for (id, change) in records { _ = try await installations.changeTags(appID: appID, id: id, change) }
        return HTTPResponse(status: 200)
    }

    func deleteTag(_ ctx: RequestContext) async throws -> HTTPResponse {
        _ = try await installations.removeTagEverywhere(appID: try ctx.appID, tag: ctx.parameter("tag"))
        return HTTPResponse(status: 200)
    }

    func alias(_ ctx: RequestContext) async throws -> HTTPResponse {
        let page = try await installations.query(appID: try ctx.appID, InstallationQuery(alias: ctx.parameter("alias"), active: true, limit: 10))
        return .json(200, ["registration_ids": .array(page.items.map { .string($0.installationID) })])
    }

    func deleteAlias(_ ctx: RequestContext) async throws -> HTTPResponse {
        let appID = try ctx.appID
        var draft = InstallationDraft()
        draft.alias = .some(nil)
        while true {
            let page = try await installations.query(appID: appID, InstallationQuery(alias: ctx.parameter("alias"), limit: 500))
            for record in page.items { _ = try await installations.update(appID: appID, id: record.id, draft) }
            if page.items.count < 500 { break }
        }
        return HTTPResponse(status: 200)
    }
}

/// JPush's times: `yyyy-MM-dd HH:mm:ss` in China Standard Time (UTC+8), as its APIs write and read them.
enum JPushTime {
    static let zone = TimeZone(secondsFromGMT: 8 * 3600)!

    static func format(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String { let v = n ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(c.year ?? 0)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute)):\(two(c.second))"
    }

    static func parse(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == ":" }).compactMap { Int($0) }
        guard parts.count == 6, text.count == 19 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts[5])
        guard c.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: c)
    }
}
