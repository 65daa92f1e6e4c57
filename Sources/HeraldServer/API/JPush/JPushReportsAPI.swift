import HeraldHTTP
import HeraldStore

/// JPush's report API (report.jpush.cn) over Herald's push counts. Herald knows, per push, how many
/// devices were targeted, how many APNs accepted (sent), failed and opened; it does not know when a
/// device displayed a push, so JPush's "received" counts are null (JPush writes null for what it lacks,
/// and Android, Windows Phone and JPush's own channel are always null here).
struct JPushReportsAPI {
    let pushes: PushesService
    let dialect: APIDialect

    var routes: [Route] {
        [
            Route("GET", "/v3/received", .master, "JPush-compatible delivery counts per msg_id (?msg_ids=a,b, ≤100): ios_apns_sent and nulls for what Herald cannot know.", dialect: dialect, handler: received),
            Route("GET", "/v3/received/detail", .master, "JPush-compatible delivery counts with ios_clicked (opens) and the detail fields.", dialect: dialect, handler: receivedDetail),
            Route("GET", "/v3/messages", .master, "JPush-compatible message statistics (?msg_ids=): ios.apns_target, apns_sent, click.", dialect: dialect, handler: messages),
            Route("GET", "/v3/messages/detail", .master, "JPush-compatible message statistics with failure counts.", dialect: dialect, handler: messagesDetail),
        ]
    }

    /// The reports of the listed msg_ids that exist (an unknown or expired one is left out, as JPush does).
    func reports(_ ctx: RequestContext) async throws -> [(Int, PushesService.Report)] {
        let appID = try ctx.appID
        guard let text = ctx.query("msg_ids"), !text.isEmpty else { throw JPushErrors.error(400, 1002, "msg_ids is required: up to 100 msg_ids separated by commas.") }
        let ids = text.split(separator: ",").map { $0.trimmingSpaces }
        guard ids.count <= 100 else { throw JPushErrors.error(400, 1003, "msg_ids has \(ids.count) ids; at most 100 are allowed.") }
        var out: [(Int, PushesService.Report)] = []
        for id in ids {
            guard let n = Int(id), n > 0 else { throw JPushErrors.error(400, 1003, "msg_ids must be numbers separated by commas; \"\(id)\" is not.") }
            do {
                out.append((n, try await pushes.get(appID: appID, id: id)))
            } catch let e as ServiceError where e.kind == .notFound {
                continue
            }
        }
        return out
    }

    func received(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, .array(try await reports(ctx).map { .object(Self.received($0, $1.push.counts, detail: false)) }))
    }

    func receivedDetail(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, .array(try await reports(ctx).map { .object(Self.received($0, $1.push.counts, detail: true)) }))
    }

    static func received(_ msgID: Int, _ c: PushCounts, detail: Bool) -> [String: JSON] {
        var row: [String: JSON] = ["msg_id": .int(msgID), "android_received": .null, "ios_apns_sent": .int(c.sent),
                                   "ios_apns_received": .null, "ios_msg_received": .null, "wp_mpns_sent": .null]
        if detail {
            row["jpush_received"] = .null
            row["android_pns_sent"] = .null
            row["ios_clicked"] = .int(c.opened)
            row["quickapp_jpush_received"] = .null
            row["quickapp_pns_sent"] = .null
        }
        return row
    }

    func messages(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, .array(try await reports(ctx).map { .object(Self.message($0, $1, detail: false)) }))
    }

    func messagesDetail(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, .array(try await reports(ctx).map { .object(Self.message($0, $1, detail: true)) }))
    }

    static func message(_ msgID: Int, _ r: PushesService.Report, detail: Bool) -> [String: JSON] {
        let c = r.push.counts
        var ios: [String: JSON] = ["apns_target": .int(c.targeted), "apns_sent": .int(c.sent), "apns_received": .null,
                                   "click": .int(c.opened), "target": .int(c.targeted), "received": .null, "msg_click": .null]
        if detail {
            ios["apns_failed"] = .int(c.failed)
            ios["failures"] = .object(r.failures.mapValues { .int($0) })
        }
        return ["msg_id": .int(msgID), "ios": .object(ios), "android": .null, "winphone": .null, "jpush": .null]
    }
}
