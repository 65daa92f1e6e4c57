import Foundation
import HeraldHTTP
import HeraldStore

/// LeanCloud's push wire protocol (REST API 1.1), so apps already in the App Store with the LeanCloud SDK keep
/// registering when their bound API domain points at Herald, and backends keep pushing with LeanCloud's server
/// SDKs: installations (`/1.1/installations` and `/1.1/classes/_Installation`), batches (`/1.1/batch`, the
/// SDKs' `/1.1/batch/save`), `/1.1/push` and the push records (`_Notification`). Requests are translated into
/// the same services Herald's own routes use; answers and errors are in LeanCloud's shapes
/// (docs/migrate-from-leancloud.md).
struct LeanCloudAPI {
    let installations: InstallationsService
    let pushes: PushesService
    let dialect: APIDialect

    init(installations: InstallationsService, pushes: PushesService, identities: CompatIdentitiesService, keys: KeyAuthenticator) {
        self.installations = installations
        self.pushes = pushes
        dialect = APIDialect(authentications: [LeanCloudAuthentication(identities: identities, keys: keys)],
                             errorResponse: LeanCloudError.response)
    }

    /// The two paths LeanCloud's SDKs use for the same class.
    static let installationPaths = ["/1.1/installations", "/1.1/classes/_Installation"]

    var routes: [Route] {
        Self.installationPaths.flatMap { base in
            [
                Route("POST", base, .client, "LeanCloud: save an _Installation (upsert by objectId, installationId, then deviceToken).", dialect: dialect, handler: create),
                Route("GET", base, .master, "LeanCloud: query _Installation (where, order, limit, skip, count, keys).", dialect: dialect, handler: query),
                Route("GET", base + "/{objectId}", .client, "LeanCloud: fetch an _Installation.", dialect: dialect, handler: fetch),
                Route("PUT", base + "/{objectId}", .client, "LeanCloud: update an _Installation (AddUnique/Remove on channels, Increment on badge).", dialect: dialect, handler: update),
                Route("DELETE", base + "/{objectId}", .master, "LeanCloud: delete an _Installation.", dialect: dialect, handler: delete),
            ]
        } + [
            Route("POST", "/1.1/batch", .client, "LeanCloud: several _Installation operations; a list of {success} or {error}.", dialect: dialect, handler: batch),
            Route("POST", "/1.1/batch/save", .client, "LeanCloud SDKs' batch save; answers keyed by __internalId or objectId.", dialect: dialect, handler: batchSave),
            Route("POST", "/1.1/push", .master, "LeanCloud: push (where, channels, data, prod, topic, push_time, expiration_*, req_id, flow_control).", dialect: dialect, handler: push),
            Route("GET", "/1.1/classes/_Notification/{objectId}", .master, "LeanCloud: a push's record (status in-queue/scheduled/done, devices, successes).", dialect: dialect, handler: notification),
            Route("GET", "/1.1/tables/Notifications/{objectId}", .master, "LeanCloud: a push's record, as Notification.fetch() reads it.", dialect: dialect, handler: notification),
            Route("GET", "/1.1/classes/_Notification", .master, "LeanCloud: recent push records, newest first (where objectId/status, limit).", dialect: dialect, handler: notifications),
        ]
    }

    // MARK: Installations

    /// One installation operation, from a route or from inside a batch.
    enum Operation {
        case save(body: [String: JSON], objectID: String?)
        case fetch(String, keys: Set<String>?)
        case delete(String)
    }

    struct Outcome {
        var status: Int
        var body: [String: JSON]
        var objectID: String?
    }

    func perform(_ operation: Operation, appID: String, fetchWhenSave: Bool) async throws -> Outcome {
        switch operation {
        case .save(let body, let objectID):
            // Checked here, before the store finds the installation; the store builds the draft from what it
            // finds, in the write's transaction (Increment, AddUnique and custom columns start from what is stored).
            let draft = try LeanCloudInstallation.draft(body, existing: nil, checking: true)
            let keyless = draft.installationID == nil && draft.deviceToken == nil
            let save = InstallationSave(
                ids: objectID.map { [$0] } ?? [body["objectId"]?.stringValue, body["installationId"]?.stringValue].compactMap { $0 },
                activeToken: objectID == nil ? draft.deviceToken : nil, mustExist: objectID != nil,
                installationID: draft.installationID, deviceToken: draft.deviceToken,
                merge: { try LeanCloudInstallation.draft(body, existing: $0) })
            let record: InstallationRecord, created: Bool
            do {
                (record, created) = try await installations.save(appID: appID, save)
            } catch let error as ServiceError where error.kind == .notFound && objectID == nil && keyless {
                throw ServiceError.missing("deviceToken", "An iOS installation needs deviceToken (or installationId).")
            }
            // LeanCloud answers an update by objectId with its time only, a save with its creation time too.
            var answer: [String: JSON] = fetchWhenSave ? LeanCloudInstallation.json(record) : ["objectId": .string(record.id)]
            if !fetchWhenSave, objectID == nil { answer["createdAt"] = ISO8601.json(record.createdAt) }
            if !created { answer["updatedAt"] = ISO8601.json(record.updatedAt) }
            return Outcome(status: created ? 201 : 200, body: answer, objectID: record.id)
        case .fetch(let objectID, let keys):
            let record = try await installations.get(appID: appID, id: objectID)
            return Outcome(status: 200, body: LeanCloudInstallation.select(LeanCloudInstallation.json(record), keys: keys), objectID: record.id)
        case .delete(let objectID):
            let record = try await installations.get(appID: appID, id: objectID)
            try await installations.delete(appID: appID, id: record.id)
            return Outcome(status: 200, body: [:], objectID: record.id)
        }
    }

    func create(_ ctx: RequestContext) async throws -> HTTPResponse {
        let outcome = try await perform(.save(body: try ctx.jsonObject(), objectID: nil), appID: try ctx.appID, fetchWhenSave: Self.fetchWhenSave(ctx))
        var headers = HTTPHeaders()
        if outcome.status == 201, let id = outcome.objectID { headers.set("location", "\(ctx.request.path)/\(id)") }
        return .json(outcome.status, .object(outcome.body), headers: headers)
    }

    func update(_ ctx: RequestContext) async throws -> HTTPResponse {
        let outcome = try await perform(.save(body: try ctx.jsonObject(), objectID: ctx.parameter("objectId")), appID: try ctx.appID,
                                        fetchWhenSave: Self.fetchWhenSave(ctx))
        return .json(200, .object(outcome.body))
    }

    func fetch(_ ctx: RequestContext) async throws -> HTTPResponse {
        let keys = ctx.query("keys").map { Set($0.split(separator: ",").map(String.init)) }
        return .json(200, .object(try await perform(.fetch(ctx.parameter("objectId"), keys: keys), appID: try ctx.appID, fetchWhenSave: false).body))
    }

    func delete(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, .object(try await perform(.delete(ctx.parameter("objectId")), appID: try ctx.appID, fetchWhenSave: false).body))
    }

    func query(_ ctx: RequestContext) async throws -> HTTPResponse {
        let (results, count) = try await LeanCloudInstallationQuery.parse(ctx).run(installations, appID: try ctx.appID)
        var answer: [String: JSON] = ["results": .array(results.map(JSON.object))]
        if let count { answer["count"] = .int(count) }
        return .json(200, .object(answer))
    }

    static func fetchWhenSave(_ ctx: RequestContext) -> Bool { ctx.query("fetchWhenSave") == "true" || ctx.query("new") == "true" }

    // MARK: Push and its record

    func push(_ ctx: RequestContext) async throws -> HTTPResponse {
        let document = try LeanCloudPush.document(try ctx.jsonObject(), productionHeader: ctx.request.headers["x-lc-prod"])
        let accepted = try await pushes.create(appID: try ctx.appID, try PushInput(document, now: ctx.now))
        return .json(200, ["objectId": .string(accepted.push.push.id), "createdAt": ISO8601.json(accepted.push.push.createdAt)])
    }

    func notification(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, .object(LeanCloudNotification.json(try await pushes.get(appID: try ctx.appID, id: ctx.parameter("objectId")))))
    }

    static let scannedNotifications = 200

    /// Recent records newest first; `where` may name an objectId (or `$in` list) and a LeanCloud status.
    func notifications(_ ctx: RequestContext) async throws -> HTTPResponse {
        let limit = try ctx.intQuery("limit", default: 100, range: 0...1000)
        var query: LeanCloudWhere?
        if let text = ctx.query("where"), !text.isEmpty {
            guard let json = try? JSON(parsing: Array(text.utf8)) else {
                throw APIError(status: 400, code: "invalid_json", message: "where is not valid JSON.", field: "where")
            }
            query = try LeanCloudWhere.parse(json)
        }
        let appID = try ctx.appID
        var records: [[String: JSON]] = []
        for part in query?.conjuncts ?? [] {
            if case .field("objectId", let condition) = part {
                let ids: [JSON] = switch condition {
                case .equals(let v): [v]
                case .oneOf(let list): list
                default: []
                }
                for id in ids.compactMap(\.stringValue).prefix(limit) {
                    if let report = try? await pushes.get(appID: appID, id: id) { records.append(LeanCloudNotification.json(report)) }
                }
                return .json(200, ["results": .array(records.filter { query?.matches($0) ?? true }.map(JSON.object))])
            }
        }
        // Each record costs a read of its failure reasons: a filter looks at the most recent `scanned` pushes only.
        let recent = try await pushes.list(appID: appID, limit: query == nil ? limit : Self.scannedNotifications).map(LeanCloudNotification.json)
        return .json(200, ["results": .array(recent.filter { query?.matches($0) ?? true }.prefix(limit).map(JSON.object))])
    }
}
