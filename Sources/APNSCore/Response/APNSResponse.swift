import Foundation

/// APNs accepted the notification (HTTP 200).
public struct APNSSuccess: Sendable, Hashable {
    /// The notification's `apns-id`: the request's, or the one APNs generated.
    public var apnsID: UUID
    /// `apns-unique-id`, sent only by the sandbox, for the Push Notifications Console logs.
    public var apnsUniqueID: UUID?

    public init(apnsID: UUID, apnsUniqueID: UUID? = nil) {
        self.apnsID = apnsID
        self.apnsUniqueID = apnsUniqueID
    }
}

/// APNs refused the notification: the HTTP status, the decoded reason and, for 410, when the
/// token became invalid.
public struct APNSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// HTTP status (400, 403, 404, 405, 410, 413, 429, 500, 503, or anything a proxy sends).
    public var status: Int
    /// The reason from the body; `nil` when the body was empty or not APNs JSON.
    public var reason: APNSReason?
    /// Milliseconds since 1970 at which the token stopped being valid (410 only).
    public var timestampMilliseconds: Int64?
    /// The notification's `apns-id`, if the response carried one.
    public var apnsID: UUID?

    public init(status: Int, reason: APNSReason?, timestampMilliseconds: Int64? = nil, apnsID: UUID? = nil) {
        self.status = status
        self.reason = reason
        self.timestampMilliseconds = timestampMilliseconds
        self.apnsID = apnsID
    }

    /// ``timestampMilliseconds`` as a date.
    public var timestamp: Date? {
        timestampMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// Whether resending can succeed: the reason's ``APNSReason/isRetryable`` when it is known,
    /// otherwise the status (429 and 5xx are retryable; other 4xx are not).
    public var isRetryable: Bool {
        if let reason, case .unknown = reason {
            return Self.statusIsRetryable(status)
        }
        return reason?.isRetryable ?? Self.statusIsRetryable(status)
    }

    /// Whether the device token must be retired: ``APNSReason/retiresToken``, or any 410.
    public var retiresToken: Bool {
        (reason?.retiresToken ?? false) || status == 410
    }

    /// Whether the credential is at fault: ``APNSReason/isCredentialFailure``.
    public var isCredentialFailure: Bool {
        reason?.isCredentialFailure ?? false
    }

    private static func statusIsRetryable(_ status: Int) -> Bool {
        status == 429 || status >= 500
    }

    public var description: String {
        var text = "APNs refused the notification: HTTP \(status)"
        if let reason { text += " \(reason.rawValue)" }
        if let timestamp { text += " (token invalid since \(timestamp))" }
        return text
    }
}

/// Interprets an APNs HTTP/2 response.
public enum APNSResponse {
    /// Turns status, the two APNs response headers and the body into a success or an error.
    ///
    /// A 200 without a usable `apns-id` takes `requestAPNSID` (what the request sent), or a
    /// fresh UUID if neither exists. Anything other than 200 is an ``APNSError``; its reason is
    /// `nil` when the body is not an APNs error body. `requestAPNSIDText` is the request's `apns-id`
    /// header as sent: an answer echoing it byte for byte is `requestAPNSID` without parsing it again
    /// (a fan-out names every notification, and APNs echoes the name).
    public static func interpret(
        status: Int,
        apnsID: String?,
        apnsUniqueID: String? = nil,
        body: [UInt8],
        requestAPNSID: UUID? = nil,
        requestAPNSIDText: String? = nil
    ) -> Result<APNSSuccess, APNSError> {
        let parsedID: UUID?
        if let apnsID, let requestAPNSID, apnsID == requestAPNSIDText {
            parsedID = requestAPNSID
        } else {
            parsedID = apnsID.flatMap { UUID(canonical: $0) }
        }
        if status == 200 {
            return .success(
                APNSSuccess(
                    apnsID: parsedID ?? requestAPNSID ?? UUID.random(),
                    apnsUniqueID: apnsUniqueID.flatMap { UUID(canonical: $0) }))
        }
        let errorBody = try? APNSErrorBody(jsonBytes: body)
        return .failure(
            APNSError(
                status: status,
                reason: errorBody?.reason,
                timestampMilliseconds: errorBody?.timestampMilliseconds,
                apnsID: parsedID ?? requestAPNSID))
    }
}
