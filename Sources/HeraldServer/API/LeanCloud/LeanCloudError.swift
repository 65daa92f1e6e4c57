import HeraldHTTP

/// LeanCloud's error body, `{"code": <int>, "error": "<message>"}`, which its SDKs parse (the Python SDK raises
/// `LeanCloudError(code, error)` from it; anything else becomes an unreadable failure in the app). Codes are
/// LeanCloud's where one fits (docs/sdk/other/error-code.mdx); statuses are LeanCloud's: 400 for a bad request,
/// 401/403/404/429 as named, 5xx for the server's own trouble.
enum LeanCloudError {

    static func response(_ error: APIError, _ headers: HTTPHeaders) -> HTTPResponse {
        let (status, code) = mapping(error)
        var message = error.message
        if let field = error.field, !message.contains(field) { message += " (field \(field))" }
        return .json(status, ["code": .int(code), "error": .string(message)], headers: headers)
    }

    /// Herald's status and code, as LeanCloud's status and code.
    static func mapping(_ error: APIError) -> (status: Int, code: Int) {
        if let field = error.field, field == "channels" || field.hasPrefix("channels[") { return (400, 112) }   // invalid channel name
        switch (error.status, error.code) {
        case (_, "invalid_json"): return (400, 107)
        case (_, "invalid_device_token"): return (400, 114)
        case (_, "unknown_field"): return (400, 105)
        case (_, "missing_field") where error.field == "objectId": return (400, 104)
        case (_, "body_too_large"): return (413, 116)
        case (_, "idempotency_conflict"), (409, _): return (400, 137)
        case (401, _): return (401, 401)
        case (403, _): return (403, 119)
        case (404, _): return (404, 101)
        case (429, _): return (429, 429)
        case (507, _): return (503, 503)
        case (500..., _): return (500, 1)
        default: return (400, 1)
        }
    }

    /// 401 with LeanCloud's wording: the App ID or its key did not check out.
    static let unauthorized = APIError(status: 401, code: "unauthorized",
        message: "Unauthorized: send X-LC-Id with X-LC-Key (App Key, or Master Key followed by ',master') or X-LC-Sign; the id, key or signature did not match.")
}
