import Foundation
import HeraldHTTP

/// `POST /1.1/batch` and the SDKs' `POST /1.1/batch/save`: up to `maxRequests` `_Installation` operations in one
/// request, each `{"method", "path", "body"}` with the path as the SDKs write it (`/1.1/installations[/id]`,
/// `/1.1/classes/_Installation[/id]`). Operations run in order, each on its own: `/1.1/batch` answers a list with
/// `{"success": ...}` or `{"error": {"code", "error"}}` per operation; `/1.1/batch/save` (what the objc and Swift
/// SDKs' `save` sends, with `__internalId` in each body) answers an object keyed by each body's `__internalId`
/// (else its objectId) and fails as a whole, with the first operation's error, when one fails.
extension LeanCloudAPI {
    static let maxRequests = 100

    func batch(_ ctx: RequestContext) async throws -> HTTPResponse {
        var results: [JSON] = []
        for item in try operations(ctx) {
            do {
                let outcome = try await run(item, ctx)
                results.append(["success": .object(outcome.body)])
            } catch {
                let apiError = Self.apiError(error)
                let (_, code) = LeanCloudError.mapping(apiError)
                results.append(["error": ["code": .int(code), "error": .string(apiError.message)]])
            }
        }
        return .json(200, .array(results))
    }

    func batchSave(_ ctx: RequestContext) async throws -> HTTPResponse {
        var answers: [String: JSON] = [:]
        for item in try operations(ctx) {
            let outcome = try await run(item, ctx)
            var body = outcome.body
            if body["objectId"] == nil, let id = outcome.objectID { body["objectId"] = .string(id) }
            let key = item.body["__internalId"]?.stringValue ?? outcome.objectID ?? ""
            answers[key] = .object(body)
        }
        return .json(200, .object(answers))
    }

    struct BatchItem {
        var method: String
        var objectID: String?
        var body: [String: JSON]
        var index: Int
    }

    private func operations(_ ctx: RequestContext) throws -> [BatchItem] {
        guard let requests = try ctx.jsonObject()["requests"]?.arrayValue else {
            throw ServiceError.missing("requests", "Send {\"requests\": [{\"method\", \"path\", \"body\"}, ...]}.")
        }
        guard requests.count <= Self.maxRequests else {
            throw ServiceError.invalid("requests", "A batch holds at most \(Self.maxRequests) operations; it has \(requests.count).")
        }
        return try requests.enumerated().map { i, request in
            guard let method = request["method"]?.stringValue?.uppercased(), let path = request["path"]?.stringValue else {
                throw ServiceError.invalid("requests[\(i)]", "requests[\(i)] needs method and path.")
            }
            let trimmed = path.split(separator: "?").first.map(String.init) ?? path
            guard let base = Self.installationPaths.first(where: { trimmed == $0 || trimmed.hasPrefix($0 + "/") }) else {
                throw ServiceError.invalid("requests[\(i)].path", "requests[\(i)].path \(path): Herald's LeanCloud batch takes _Installation operations only (/1.1/installations or /1.1/classes/_Installation); other classes are not supported.")
            }
            let rest = trimmed.dropFirst(base.count).drop { $0 == "/" }
            let objectID = rest.isEmpty ? nil : String(rest)
            let valid = objectID == nil ? method == "POST" : ["PUT", "GET", "DELETE"].contains(method)
            guard valid else { throw ServiceError.invalid("requests[\(i)].method", "requests[\(i)]: \(method) \(path) is not an _Installation operation.") }
            let body = request["body"]?.objectValue ?? [:]
            return BatchItem(method: method, objectID: objectID, body: body, index: i)
        }
    }

    /// One operation, with the caller's powers: an App Key may save and fetch, deleting needs the Master Key.
    private func run(_ item: BatchItem, _ ctx: RequestContext) async throws -> Outcome {
        let appID = try ctx.appID
        switch (item.method, item.objectID) {
        case ("POST", _): return try await perform(.save(body: item.body, objectID: nil), appID: appID, fetchWhenSave: Self.fetchWhenSave(item.body))
        case ("PUT", let id?): return try await perform(.save(body: item.body, objectID: id), appID: appID, fetchWhenSave: Self.fetchWhenSave(item.body))
        case ("GET", let id?): return try await perform(.fetch(id, keys: nil), appID: appID, fetchWhenSave: false)
        case ("DELETE", let id?):
            guard !ctx.isClient else { throw ServiceError.forbidden("Deleting an installation needs the Master Key.") }
            return try await perform(.delete(id), appID: appID, fetchWhenSave: false)
        default: throw ServiceError.invalid("requests[\(item.index)]", "Unsupported operation.")
        }
    }

    static func fetchWhenSave(_ body: [String: JSON]) -> Bool { body["fetchWhenSave"]?.boolValue == true }

    static func apiError(_ error: any Error) -> APIError {
        if let e = error as? APIError { return e }
        if let e = ServiceError(error) { return APIError(e) }
        return APIError(status: 500, code: "internal", message: "Internal error; this operation was not completed.")
    }
}
