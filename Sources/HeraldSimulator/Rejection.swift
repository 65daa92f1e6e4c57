import APNSCore

/// A provider API refusal: the HTTP status and Apple's `reason` string (APNSCore's `APNSReason`).
struct Rejection: Sendable, Equatable, Hashable {
    let status: Int
    let reason: String

    init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }

    init(_ reason: APNSReason) {
        self.init(status: reason.status ?? 400, reason: reason.rawValue)
    }

    static let badCollapseId = Rejection(.badCollapseID)
    static let badDeviceToken = Rejection(.badDeviceToken)
    static let badExpirationDate = Rejection(.badExpirationDate)
    static let badMessageId = Rejection(.badMessageID)
    static let badPriority = Rejection(.badPriority)
    static let badTopic = Rejection(.badTopic)
    static let deviceTokenNotForTopic = Rejection(.deviceTokenNotForTopic)
    static let duplicateHeaders = Rejection(.duplicateHeaders)
    static let invalidPushType = Rejection(.invalidPushType)
    static let missingDeviceToken = Rejection(.missingDeviceToken)
    static let missingTopic = Rejection(.missingTopic)
    static let payloadEmpty = Rejection(.payloadEmpty)
    static let topicDisallowed = Rejection(.topicDisallowed)
    /// Not in Apple's table (APNs' answer to malformed JSON is undocumented); see docs/simulator.md.
    static let badPayload = Rejection(status: 400, reason: "BadPayload")
    static let badCertificate = Rejection(.badCertificate)
    static let badCertificateEnvironment = Rejection(.badCertificateEnvironment)
    static let expiredProviderToken = Rejection(.expiredProviderToken)
    static let invalidProviderToken = Rejection(.invalidProviderToken)
    static let missingProviderToken = Rejection(.missingProviderToken)
    static let badEnvironmentKeyIdInToken = Rejection(.badEnvironmentKeyIDInToken)
    static let badPath = Rejection(.badPath)
    static let methodNotAllowed = Rejection(.methodNotAllowed)
    static let unregistered = Rejection(.unregistered)
    static let payloadTooLarge = Rejection(.payloadTooLarge)
    static let tooManyProviderTokenUpdates = Rejection(.tooManyProviderTokenUpdates)
    static let tooManyRequests = Rejection(.tooManyRequests)
    static let internalServerError = Rejection(.internalServerError)
    static let serviceUnavailable = Rejection(.serviceUnavailable)

    /// `{"reason":"…"}`, or with `timestamp` (milliseconds since 1970) for 410.
    func body(timestampMilliseconds: Int64? = nil) -> [UInt8] {
        if let ms = timestampMilliseconds {
            return Array(#"{"reason":"\#(reason)","timestamp":\#(ms)}"#.utf8)
        }
        return Array(#"{"reason":"\#(reason)"}"#.utf8)
    }
}
