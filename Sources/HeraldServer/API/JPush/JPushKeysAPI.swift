import HeraldHTTP

/// An app's JPush keys (`PUT/GET/DELETE /v1/apps/{appId}/jpush`), so JPush's SDKs authenticate with
/// `appKey:masterSecret` as they do with JPush. The master secret is sealed at rest and never returned or
/// logged; reads show the App Key and a hint of the secret.
struct JPushKeysAPI {
    let identities: CompatIdentitiesService
    static let provider = "jpush"

    var routes: [Route] {
        [
            Route("PUT", "/v1/apps/{appId}/jpush", .appAdmin, "Set the app's JPush App Key and Master Secret (JPush SDKs authenticate with them).", handler: put),
            Route("GET", "/v1/apps/{appId}/jpush", .appAdmin, "The app's JPush App Key and a hint of its Master Secret.", handler: get),
            Route("DELETE", "/v1/apps/{appId}/jpush", .appAdmin, "Remove the app's JPush keys; JPush SDKs then need the Herald app id and master key.", handler: delete),
        ]
    }

    static func json(_ s: CompatIdentitiesService.Summary) -> JSON {
        ["appKey": .string(s.publicID), "masterSecretHint": .optional(s.hints["masterSecret"]), "updatedAt": ISO8601.json(s.updatedAt)]
    }

    func put(_ ctx: RequestContext) async throws -> HTTPResponse {
        let body = BodyReader(try ctx.jsonObject())
        try body.rejectUnknown(["appKey", "masterSecret"])
        let appKey = try body.requiredString("appKey", maxLength: 64), secret = try body.requiredString("masterSecret", maxLength: 128)
        guard appKey.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw ServiceError.invalid("appKey", "appKey must be letters, digits, - or _ (JPush App Keys are 24 hex digits).")
        }
        let summary = try await identities.put(appID: ctx.parameter("appId"), provider: Self.provider, publicID: appKey, secrets: ["masterSecret": secret])
        return .json(200, Self.json(summary))
    }

    func get(_ ctx: RequestContext) async throws -> HTTPResponse {
        .json(200, Self.json(try await identities.get(appID: ctx.parameter("appId"), provider: Self.provider)))
    }

    func delete(_ ctx: RequestContext) async throws -> HTTPResponse {
        try await identities.delete(appID: ctx.parameter("appId"), provider: Self.provider)
        return .noContent
    }
}
