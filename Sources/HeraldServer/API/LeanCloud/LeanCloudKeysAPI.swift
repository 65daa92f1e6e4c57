import Foundation
import HeraldHTTP

/// `PUT/GET/DELETE /v1/apps/{appId}/leancloud`: the app's LeanCloud App ID, App Key and Master Key, which the
/// `/1.1/*` routes authenticate against. Herald's own routes and error format (admin key, or the app's master
/// key). The keys are sealed at rest and never returned: `GET` shows the App ID and hints only.
struct LeanCloudKeysAPI {
    let identities: CompatIdentitiesService

    static let provider = "leancloud"

    var routes: [Route] {
        [
            Route("PUT", "/v1/apps/{appId}/leancloud", .appAdmin, "Set the app's LeanCloud App ID, App Key and Master Key (sealed; never shown again).", handler: put),
            Route("GET", "/v1/apps/{appId}/leancloud", .appAdmin, "The app's LeanCloud App ID and key hints.", handler: get),
            Route("DELETE", "/v1/apps/{appId}/leancloud", .appAdmin, "Remove the app's LeanCloud keys; LeanCloud-signed requests stop working.", handler: delete),
        ]
    }

    func put(_ ctx: RequestContext) async throws -> HTTPResponse {
        let body = BodyReader(try ctx.jsonObject())
        try body.rejectUnknown(["appId", "appKey", "masterKey"])
        let appID = try body.requiredString("appId", maxLength: 128)
        guard appID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != 0x2c }) else {
            throw ServiceError.invalid("appId", "appId must be LeanCloud's App ID as shown in its console (printable ASCII, no spaces or commas).")
        }
        var secrets: [String: String] = [:]
        for key in ["appKey", "masterKey"] {
            let value = try body.requiredString(key, maxLength: 128)
            guard value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != 0x2c }) else {
                throw ServiceError.invalid(key, "\(key) must be the key as LeanCloud's console shows it (printable ASCII, no spaces or commas).")
            }
            secrets[key] = value
        }
        let summary = try await identities.put(appID: ctx.parameter("appId"), provider: Self.provider, publicID: appID, secrets: secrets)
        return .json(200, Self.json(summary))
    }

    func get(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, Self.json(try await identities.get(appID: ctx.parameter("appId"), provider: Self.provider)))
    }

    func delete(_ ctx: RequestContext) async throws -> HTTPResponse {
        try await identities.delete(appID: ctx.parameter("appId"), provider: Self.provider)
        return .noContent
    }

    static func json(_ s: CompatIdentitiesService.Summary) -> JSON {
        ["appId": .string(s.publicID), "hints": .object(s.hints.mapValues(JSON.string)), "updatedAt": ISO8601.json(s.updatedAt)]
    }
}
