import Foundation
import HeraldHTTP
import HeraldStore

/// `POST /v3/push`, `POST /v3/push/validate` and `GET /v3/push/cid`. A JPush push is a Herald push
/// underneath (same validation, storage, status and counts); its msg_id is the Herald push id, all digits,
/// because the SDKs read msg_id as a 64-bit integer (and `GET /v1/pushes/{msg_id}` shows it).
struct JPushPushAPI {
    let pushes: PushesService
    let installations: InstallationsService
    let dialect: APIDialect

    var routes: [Route] {
        [
            Route("POST", "/v3/push", .master, "JPush-compatible push: platform, audience, notification.ios, message, options, cid. Answers {sendno, msg_id}.", dialect: dialect, handler: push),
            Route("POST", "/v3/push/validate", .master, "JPush-compatible push check: validated and its audience counted, nothing sent.", dialect: dialect, handler: validate),
            Route("GET", "/v3/push/cid", .master, "JPush-compatible cid list (?count=1..1000) for idempotent pushes.", dialect: dialect, handler: cids),
        ]
    }

    /// A push's msg_id: 15 digits, exact in JSON numbers (JavaScript's SDK) and in a 64-bit long. Random; but
    /// with a cid it follows from the app and cid (FNV-1a), so a repeated cid yields the same push document
    /// and Herald's idempotency returns the first push instead of sending again.
    static func msgID(appID: String, cid: String?) -> Int {
        let low = 100_000_000_000_000, span = 900_000_000_000_000
        guard let cid else { return Int.random(in: low..<(low + span)) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(appID)\u{0}\(cid)".utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return low + Int(hash % UInt64(span))
    }

    func push(_ ctx: RequestContext) async throws -> HTTPResponse {
        let (appID, translation, input) = try await prepare(ctx, checkingReach: false)
        // Whether the audience reaches anyone is checked in the push's insert: a read of its own before it
        // was ~50 µs of a push's ~310 µs of server CPU (docs/performance.md, "Round 18"). `prepare` counted
        // it already where the store's selector alone cannot say (`storeChecksReach`).
        do {
            let accepted = try await pushes.create(appID: appID, input, id: String(translation.msgID),
                                                   requireReach: Self.storeChecksReach(translation, input))
            return answer(translation, msgID: accepted.push.push.id)
        } catch is AudienceReachesNoOne {
            throw JPushErrors.noTarget()
        }
    }

    func validate(_ ctx: RequestContext) async throws -> HTTPResponse {
        let (appID, translation, input) = try await prepare(ctx, checkingReach: true)
        _ = try await pushes.dryRun(appID: appID, input)
        return answer(translation, msgID: "0")
    }

    /// Whether the push's insert can tell if its audience reaches anyone: not for a spread push (its rate
    /// follows from its audience's size, counted before) nor for one with a filter the store's selector does
    /// not apply.
    private static func storeChecksReach(_ translation: JPushPushTranslation, _ input: PushInput) -> Bool {
        translation.spreadMinutes == nil && input.spec.filter.isEmpty
    }

    /// Translates, validates and checks the audience reaches someone (1011 otherwise, as JPush answers):
    /// when `checkingReach`, or when the insert cannot (`storeChecksReach`).
    private func prepare(_ ctx: RequestContext, checkingReach: Bool) async throws -> (String, JPushPushTranslation, PushInput) {
        let appID = try ctx.appID
        let body = try ctx.jsonObject()
        var translation = try JPushPushTranslation(body, msgID: Self.msgID(appID: appID, cid: body["cid"]?.stringValue))
        try await resolveFilteredIDs(&translation.document, appID: appID)
        var input = try PushInput(translation.document, now: ctx.now)
        guard checkingReach || !Self.storeChecksReach(translation, input) else { return (appID, translation, input) }
        let reach = try await pushes.audience(appID: appID, input.spec, upTo: translation.spreadMinutes == nil ? 1 : .max).count
        guard reach > 0 else { throw JPushErrors.noTarget() }
        if let minutes = translation.spreadMinutes {
            var document = translation.document
            var options = document["options"]?.objectValue ?? [:]
            options["rateLimit"] = .int(max(1, Int((Double(reach) / Double(minutes * 60)).rounded(.up))))
            document["options"] = .object(options)
            input = try PushInput(document, now: ctx.now)
        }
        return (appID, translation, input)
    }

    /// Alias and registration_id together: the filter compares server ids, and apps send their installationId.
    private func resolveFilteredIDs(_ document: inout [String: JSON], appID: String) async throws {
        guard case .object(var target)? = document["target"], let ids = target["filter"]?["installationIds"]?.arrayValue else { return }
        var resolved: [JSON] = []
        for id in ids.compactMap(\.stringValue) {
            if let record = try await installations.find(appID: appID, id: id) { resolved.append(.string(record.id)) }
        }
        guard !resolved.isEmpty else { throw JPushErrors.noTarget() }
        target["filter"] = ["installationIds": .array(resolved)]
        document["target"] = .object(target)
    }

    private func answer(_ translation: JPushPushTranslation, msgID: String) -> HTTPResponse {
        var body: [String: JSON] = ["sendno": .string(translation.sendno), "msg_id": .string(msgID)]
        if !translation.ignored.isEmpty { body["ignored"] = .array(translation.ignored.map(JSON.string)) }
        return .json(200, .object(body))
    }

    /// JPush hands out cids before pushes; Herald accepts any cid, so these are fresh `{appKey}-{uuid}` values.
    func cids(_ ctx: RequestContext) async throws -> HTTPResponse {
        let count = try ctx.intQuery("count", default: 1, range: 1...1000)
        if let type = ctx.query("type"), !["push", "schedule"].contains(type) {
            throw JPushErrors.error(400, 1003, "type must be push or schedule.")
        }
        let owner = ctx.principal?.keyID.hasPrefix("jpush:") == true ? String(ctx.principal!.keyID.dropFirst(6)) : try ctx.appID
        return .json(200, ["cidlist": .array((0..<count).map { _ in .string("\(owner)-\(UUID().uuidString.lowercased())") })])
    }
}
