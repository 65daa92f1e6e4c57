import HeraldHTTP

/// JPush's error body `{"error":{"code":<int>,"message":"..."}}` with JPush's business codes and HTTP
/// statuses. JPush numbers its codes per API family (push 1xxx, devices 7xxx, schedules 8xxx); the SDKs
/// raise on any non-2xx status and hand the code to the caller, so the code is what callers branch on.
enum JPushErrors {
    /// A route family's codes for the failures Herald's own layers report (bad input, unknown record, ...).
    struct Family: Sendable {
        var missing: Int
        var invalid: Int
        var authFailed: Int
        var notFound: (status: Int, code: Int)
        var forbidden: Int
        var internalError: Int

        /// `/v3/push*` and the reports (report.jpush.cn shares the push codes for these cases).
        static let push = Family(missing: 1002, invalid: 1003, authFailed: 1004, notFound: (400, 1003), forbidden: 2007, internalError: 1000)
        /// `/v3/devices*`, `/v3/tags*`, `/v3/aliases*`.
        static let device = Family(missing: 7002, invalid: 7002, authFailed: 7004, notFound: (400, 7002), forbidden: 7004, internalError: 7000)
        /// `/v3/schedules*`.
        static let schedule = Family(missing: 8100, invalid: 8100, authFailed: 8101, notFound: (404, 8104), forbidden: 8101, internalError: 8200)
    }

    /// An error only JPush has a code for (1011 no target, 1005 too big, ...): the code travels as the
    /// `APIError` code in digits and is written as is.
    static func error(_ status: Int, _ code: Int, _ message: String) -> APIError {
        APIError(status: status, code: String(code), message: message)
    }

    static func noTarget() -> APIError {
        error(400, 1011, "cannot find user by this audience: no active iOS installation matches it (registration_id is the Herald installation id).")
    }

    /// The status and code JPush would answer for an error of Herald's middleware or services.
    static func map(_ e: APIError, _ family: Family) -> (status: Int, code: Int) {
        if let code = Int(e.code) { return (e.status, code) }
        switch (e.status, e.code) {
        case (401, _): return (401, family.authFailed)
        case (_, "missing_field"), (_, "missing_topic"): return (400, family.missing)
        case (_, "payload_too_large"), (413, _): return (400, 1005)
        case (429, _): return (429, 2002)
        case (403, _): return (403, family.forbidden)
        case (404, _): return family.notFound
        case (500..., _): return (e.status == 503 ? 503 : 500, family.internalError)
        default: return (400, family.invalid)   // 400, 409 (idempotency conflict), 422
        }
    }

    static func response(_ e: APIError, headers: HTTPHeaders, family: Family) -> HTTPResponse {
        let (status, code) = map(e, family)
        let message = e.field.map { e.message.contains($0) ? e.message : "\($0): \(e.message)" } ?? e.message
        return .json(status, ["error": ["code": .int(code), "message": .string(message)]], headers: headers)
    }
}
