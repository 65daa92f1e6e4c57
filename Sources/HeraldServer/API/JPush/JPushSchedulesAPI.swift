import Foundation
import HeraldHTTP
import HeraldStore

/// JPush's schedule API (`/v3/schedules`) for single-time triggers: `{name, enabled, trigger: {single:
/// {time: "yyyy-MM-dd HH:mm:ss"}}, push: {...a /v3/push body...}}`, the time in China Standard Time as
/// JPush reads it. Periodical triggers are refused (8100) with a message saying so.
struct JPushSchedulesAPI {
    let schedules: JPushSchedulesService
    let dialect: APIDialect
    static let pageSize = 50

    var routes: [Route] {
        [
            Route("POST", "/v3/schedules", .master, "JPush-compatible schedule create (single-time trigger): {schedule_id, name}.", dialect: dialect, handler: create),
            Route("GET", "/v3/schedules", .master, "JPush-compatible schedule list (?page=, 50 per page).", dialect: dialect, handler: list),
            Route("GET", "/v3/schedules/{schedule_id}", .master, "JPush-compatible schedule: {schedule_id, name, enabled, trigger, push}.", dialect: dialect, handler: get),
            Route("PUT", "/v3/schedules/{schedule_id}", .master, "JPush-compatible schedule update (any of name, enabled, trigger, push).", dialect: dialect, handler: update),
            Route("DELETE", "/v3/schedules/{schedule_id}", .master, "JPush-compatible schedule delete; its push is cancelled if not sent.", dialect: dialect, handler: delete),
            Route("GET", "/v3/schedules/{schedule_id}/msg_ids", .master, "JPush-compatible msg_ids the schedule has sent: {count, msgids}.", dialect: dialect, handler: msgIDs),
        ]
    }

    static func invalid(_ message: String) -> APIError { JPushErrors.error(400, 8100, message) }

    func create(_ ctx: RequestContext) async throws -> HTTPResponse {
        let appID = try ctx.appID
        let body = try ctx.jsonObject()
        let record = try await schedules.create(appID: appID, try input(body, appID: appID, now: ctx.now, base: nil))
        return .json(200, ["schedule_id": .string(record.id), "name": .string(record.name)])
    }

    func get(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, .object(Self.json(try await schedules.get(appID: try ctx.appID, id: ctx.parameter("schedule_id")))))
    }

    func list(_ ctx: RequestContext) async throws -> HTTPResponse {
        let page = try ctx.intQuery("page", default: 1, range: 1...100_000)
        let (items, total) = try await schedules.list(appID: try ctx.appID, page: page, size: Self.pageSize)
        return .json(200, ["total_count": .int(total), "total_pages": .int((total + Self.pageSize - 1) / Self.pageSize), "page": .int(page),
                           "schedules": .array(items.map { .object(Self.json($0)) })])
    }

    func update(_ ctx: RequestContext) async throws -> HTTPResponse {
        let appID = try ctx.appID, id = ctx.parameter("schedule_id")
        let current = try await schedules.get(appID: appID, id: id)
        let record = try await schedules.update(appID: appID, id: id, try input(try ctx.jsonObject(), appID: appID, now: ctx.now, base: current))
        return .json(200, .object(Self.json(record)))
    }

    func delete(_ ctx: RequestContext) async throws -> HTTPResponse {
        try await schedules.delete(appID: try ctx.appID, id: ctx.parameter("schedule_id"))
        return HTTPResponse(status: 200)
    }

    func msgIDs(_ ctx: RequestContext) async throws -> HTTPResponse {
        let ids = try await schedules.sentPushIDs(appID: try ctx.appID, id: ctx.parameter("schedule_id"))
        return .json(200, ["count": .int(ids.count), "msgids": .array(ids.map(JSON.string))])
    }

    static func json(_ r: JPushScheduleRecord) -> [String: JSON] {
        ["schedule_id": .string(r.id), "name": .string(r.name), "enabled": .bool(r.enabled),
         "trigger": (try? JSON(parsing: Array(r.trigger.utf8))) ?? .null, "push": (try? JSON(parsing: Array(r.push.utf8))) ?? .null]
    }

    /// The schedule a body describes; on update (`base`) the fields it leaves out keep their values.
    func input(_ body: [String: JSON], appID: String, now: Date, base: JPushScheduleRecord?) throws -> JPushSchedulesService.Input {
        for key in body.keys.sorted() where !["cid", "name", "enabled", "trigger", "push"].contains(key) {
            throw Self.invalid("\(key) is not a schedule field; send name, enabled, trigger and push.")
        }
        func stored(_ text: String?) -> JSON? { text.flatMap { try? JSON(parsing: Array($0.utf8)) } }
        let name: String
        if let n = body["name"], !n.isNull {
            guard let text = n.stringValue, !text.isEmpty, text.utf8.count <= 255 else { throw Self.invalid("name must be a string of 1 to 255 bytes.") }
            name = text
        } else if let base { name = base.name } else { throw JPushErrors.error(400, 8100, "name is required.") }
        let enabled: Bool
        if let e = body["enabled"], !e.isNull {
            guard let b = e.boolValue else { throw Self.invalid("enabled must be true or false.") }
            enabled = b
        } else if let base { enabled = base.enabled } else { throw Self.invalid("enabled is required (true or false).") }
        guard let trigger = body["trigger"] ?? stored(base?.trigger) else { throw Self.invalid("trigger is required: {\"single\": {\"time\": \"yyyy-MM-dd HH:mm:ss\"}}.") }
        guard let push = (body["push"] ?? stored(base?.push))?.objectValue else { throw Self.invalid("push is required: a /v3/push body.") }
        let sendAt = try Self.time(trigger, now: now)

        var send: (input: PushInput, id: String)?
        if enabled {
            let cid = body["cid"]?.stringValue ?? push["cid"]?.stringValue
            do {
                let translation = try JPushPushTranslation(push, msgID: JPushPushAPI.msgID(appID: appID, cid: cid))
                var document = translation.document
                var options = document["options"]?.objectValue ?? [:]
                options["sendAt"] = .string(ISO8601.string(sendAt))
                document["options"] = .object(options)
                send = (try PushInput(document, now: now), String(translation.msgID))
            } catch let e as APIError {
                throw Self.invalid("push: \(e.message)")   // the schedule family's code, with the push's reason
            } catch let e as ServiceError {
                throw Self.invalid("push: \(e.message)")
            }
        }
        return .init(name: name, enabled: enabled, trigger: trigger.encoded, push: JSON.object(push).encoded, send: send)
    }

    /// `{"single": {"time": "yyyy-MM-dd HH:mm:ss"}}`, in the future.
    static func time(_ trigger: JSON, now: Date) throws -> Date {
        if trigger["periodical"] != nil {
            throw invalid("trigger.periodical is not supported by Herald; create one single-time schedule per send (trigger.single.time).")
        }
        guard let text = trigger["single"]?["time"]?.stringValue else {
            throw invalid("trigger must be {\"single\": {\"time\": \"yyyy-MM-dd HH:mm:ss\"}} (China Standard Time, as JPush reads it).")
        }
        guard let date = JPushTime.parse(text) else { throw invalid("trigger.single.time must look like 2027-01-15 20:00:00 (China Standard Time).") }
        guard date > now else { throw invalid("trigger.single.time \(text) is in the past.") }
        return date
    }
}
