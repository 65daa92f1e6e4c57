import Foundation

/// One notification to one device: the request the APNs client sends and the simulator
/// receives.
///
/// Push type and priority may be left `nil`; ``prepare()`` derives them from the payload (see
/// ``resolvedPushType`` and ``resolvedPriority``), checks every limit APNs would enforce, and
/// returns the exact HTTP/2 headers and body.
public struct APNSNotification: Sendable {
    /// The device to deliver to.
    public var deviceToken: DeviceToken
    /// `apns-topic`: the bundle ID, with the suffix the push type needs (``APNSPushType/topic(forBundleID:)``).
    public var topic: String
    /// `apns-push-type`; `nil` derives it from the payload.
    public var pushType: APNSPushType?
    /// `apns-priority`; `nil` derives it from the push type.
    public var priority: APNSPriority?
    /// `apns-expiration`; `nil` leaves the header out (APNs storage policy applies).
    public var expiration: APNSExpiration?
    /// `apns-collapse-id`: notifications with the same ID show as one; at most 64 UTF-8 bytes.
    public var collapseID: String?
    /// `apns-id`; `nil` lets APNs generate one (it is returned in the response).
    public var apnsID: UUID?
    /// The body: a payload model, or bytes encoded once and shared.
    public var payload: Payload

    /// The request body before it is sent.
    public enum Payload: Sendable {
        /// A model, encoded by ``APNSNotification/prepare()``.
        case model(APNSPayload)
        /// Bytes encoded earlier (once per variant, shared by many devices).
        case encoded(APNSEncodedPayload)
    }

    public init(
        deviceToken: DeviceToken,
        topic: String,
        payload: APNSPayload,
        pushType: APNSPushType? = nil,
        priority: APNSPriority? = nil,
        expiration: APNSExpiration? = nil,
        collapseID: String? = nil,
        apnsID: UUID? = nil
    ) {
        self.init(
            deviceToken: deviceToken, topic: topic, body: .model(payload), pushType: pushType, priority: priority,
            expiration: expiration, collapseID: collapseID, apnsID: apnsID)
    }

    public init(
        deviceToken: DeviceToken,
        topic: String,
        encodedPayload: APNSEncodedPayload,
        pushType: APNSPushType? = nil,
        priority: APNSPriority? = nil,
        expiration: APNSExpiration? = nil,
        collapseID: String? = nil,
        apnsID: UUID? = nil
    ) {
        self.init(
            deviceToken: deviceToken, topic: topic, body: .encoded(encodedPayload), pushType: pushType,
            priority: priority, expiration: expiration, collapseID: collapseID, apnsID: apnsID)
    }

    /// A notification addressed by a hex token string, for callers holding unvalidated input.
    ///
    /// - Throws: ``APNSValidationError/invalidDeviceToken(_:)`` naming what is wrong with it.
    public init(
        deviceTokenHex: String,
        topic: String,
        payload: APNSPayload,
        pushType: APNSPushType? = nil,
        priority: APNSPriority? = nil,
        expiration: APNSExpiration? = nil,
        collapseID: String? = nil,
        apnsID: UUID? = nil
    ) throws(APNSValidationError) {
        let token: DeviceToken
        do {
            token = try DeviceToken(hex: deviceTokenHex)
        } catch {
            throw .invalidDeviceToken(error)
        }
        self.init(
            deviceToken: token, topic: topic, payload: payload, pushType: pushType, priority: priority,
            expiration: expiration, collapseID: collapseID, apnsID: apnsID)
    }

    private init(
        deviceToken: DeviceToken, topic: String, body: Payload, pushType: APNSPushType?, priority: APNSPriority?,
        expiration: APNSExpiration?, collapseID: String?, apnsID: UUID?
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.payload = body
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
    }

    /// What is known about the payload's content (`nil` for unchecked raw bytes).
    public var payloadTraits: APNSPayloadTraits? {
        switch payload {
        case .model(let model): return model.traits
        case .encoded(let encoded): return encoded.traits
        }
    }

    /// The push type sent: ``pushType`` if set; otherwise ``APNSPushType/inferred(from:)``:
    /// `background` when the payload only asks for a background update (`content-available`
    /// without alert, badge or sound), `liveactivity` when it carries an `event`, else `alert`.
    public var resolvedPushType: APNSPushType {
        pushType ?? .inferred(from: payloadTraits)
    }

    /// The priority sent: ``priority`` if set; otherwise the push type's
    /// ``APNSPushType/defaultPriority`` (5 for background pushes, 10 for everything else).
    public var resolvedPriority: APNSPriority {
        priority ?? resolvedPushType.defaultPriority
    }

    /// Checks the notification against APNs' rules without keeping the result.
    ///
    /// - Throws: the first ``APNSValidationError`` found, in the order of ``prepare()``.
    public func validate() throws(APNSValidationError) {
        _ = try prepare()
    }

    /// Validates, derives push type and priority, encodes the payload if needed, and returns
    /// the request ready to send.
    ///
    /// Checks, in order: topic (present, suffix matching the push type), collapse ID length,
    /// priority (documented value, allowed for the push type), expiration not negative, payload
    /// (not empty, no custom `aps` key, what the push type requires of it: see
    /// ``APNSPushType/check(payload:)``, size within the push type's limit).
    ///
    /// - Throws: ``APNSValidationError`` naming the problem and the limit.
    public func prepare() throws(APNSValidationError) -> APNSPreparedRequest {
        let pushType = resolvedPushType
        let priority = resolvedPriority
        try Self.checkTopic(topic, for: pushType)
        if let collapseID {
            let size = collapseID.utf8.count
            if size > APNSNotification.collapseIDByteLimit {
                throw .collapseIDTooLong(byteCount: size, limit: APNSNotification.collapseIDByteLimit)
            }
        }
        try pushType.check(priority: priority)
        if let expiration, expiration.unixSeconds < 0 {
            throw .negativeExpiration(expiration.unixSeconds)
        }

        let body: [UInt8]
        let traits: APNSPayloadTraits?
        switch payload {
        case .model(let model):
            body = model.jsonBytes()
            traits = model.traits
        case .encoded(let encoded):
            body = encoded.bytes
            traits = encoded.traits
        }
        if body.isEmpty { throw .payloadEmpty }
        if let traits {
            if traits.hasCustomApsKey { throw .customKeyNamedAps }
            try pushType.check(payload: traits)
        }
        let limit = pushType.payloadSizeLimit
        if body.count > limit {
            throw .payloadTooLarge(byteCount: body.count, limit: limit, pushType: pushType)
        }
        return APNSPreparedRequest(
            deviceToken: deviceToken, topic: topic, pushType: pushType, priority: priority, expiration: expiration,
            collapseID: collapseID, apnsID: apnsID, body: body)
    }

    /// `apns-collapse-id` may be at most this many UTF-8 bytes.
    public static let collapseIDByteLimit = 64

    private static func checkTopic(_ topic: String, for pushType: APNSPushType) throws(APNSValidationError) {
        if topic.isEmpty { throw .emptyTopic }
        if pushType == .mdm || !pushType.isKnown { return }
        if let suffix = pushType.requiredTopicSuffix {
            guard endsWith(topic, suffix.utf8), topic.utf8.count > suffix.utf8.count else {
                throw .topicMissingSuffix(topic: topic, pushType: pushType, requiredSuffix: suffix)
            }
            return
        }
        // alert and background go to the bare bundle ID: a topic carrying another type's suffix
        // is a mix-up APNs answers with DeviceTokenNotForTopic or BadTopic. (Checked for every
        // notification, so byte comparisons against suffixes listed once.)
        for (other, suffix) in suffixes where endsWith(topic, suffix) {
            throw .topicHasSuffixOfOtherPushType(topic: topic, pushType: pushType, suffixOf: other)
        }
    }

    private static let suffixes: [(APNSPushType, [UInt8])] = APNSPushType.allKnown.compactMap { type in
        type.requiredTopicSuffix.map { (type, Array($0.utf8)) }
    }

    private static func endsWith<S: Collection>(_ topic: String, _ suffix: S) -> Bool where S.Element == UInt8 {
        let utf8 = topic.utf8
        guard utf8.count >= suffix.count else { return false }
        return utf8.suffix(suffix.count).elementsEqual(suffix)
    }
}
