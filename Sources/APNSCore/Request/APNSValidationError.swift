/// A notification APNs would refuse, found before sending it. Each message names the problem,
/// the limit, and what to change.
public enum APNSValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device token string is malformed.
    case invalidDeviceToken(DeviceTokenError)
    /// `apns-topic` is empty.
    case emptyTopic
    /// The push type needs a topic suffix (`.voip`, `.push-type.liveactivity`…) the topic lacks.
    case topicMissingSuffix(topic: String, pushType: APNSPushType, requiredSuffix: String)
    /// An alert or background push addressed to a topic with another push type's suffix.
    case topicHasSuffixOfOtherPushType(topic: String, pushType: APNSPushType, suffixOf: APNSPushType)
    /// `apns-collapse-id` is longer than 64 UTF-8 bytes.
    case collapseIDTooLong(byteCount: Int, limit: Int)
    /// `apns-priority` is not 10, 5 or 1.
    case invalidPriority(Int)
    /// A background push with priority 10.
    case backgroundPriorityTooHigh
    /// A priority the push type does not take (a Live Activity at 1, a background push at 1).
    case priorityNotAllowed(priority: Int, pushType: APNSPushType, allowed: [Int])
    /// `apns-expiration` before 1970.
    case negativeExpiration(Int)
    /// The body is empty.
    case payloadEmpty
    /// A custom top-level key is named `aps`.
    case customKeyNamedAps
    /// A background push without `content-available: 1`.
    case backgroundWithoutContentAvailable
    /// A background push with `alert`, `badge` or `sound` (the listed keys).
    case backgroundWithUserVisibleContent(keys: [String])
    /// The encoded payload exceeds the push type's limit.
    case payloadTooLarge(byteCount: Int, limit: Int, pushType: APNSPushType)
    /// A Live Activity push without `aps.event`.
    case liveActivityWithoutEvent
    /// A Live Activity push without `aps.timestamp`.
    case liveActivityWithoutTimestamp
    /// `aps.event` is not `start`, `update` or `end`.
    case unknownLiveActivityEvent(String)
    /// A Live Activity `start` without the listed keys of `alert`, `attributes-type`, `attributes`.
    case liveActivityStartIncomplete(missing: [String])

    /// The APNs reason the same mistake would earn if sent.
    public var apnsReason: APNSReason? {
        switch self {
        case .invalidDeviceToken: return .badDeviceToken
        case .emptyTopic: return .missingTopic
        case .topicMissingSuffix, .topicHasSuffixOfOtherPushType: return .badTopic
        case .collapseIDTooLong: return .badCollapseID
        case .invalidPriority, .backgroundPriorityTooHigh, .priorityNotAllowed: return .badPriority
        case .negativeExpiration: return .badExpirationDate
        case .payloadEmpty: return .payloadEmpty
        case .payloadTooLarge: return .payloadTooLarge
        case .customKeyNamedAps, .backgroundWithoutContentAvailable, .backgroundWithUserVisibleContent,
            .liveActivityWithoutEvent, .liveActivityWithoutTimestamp, .unknownLiveActivityEvent,
            .liveActivityStartIncomplete:
            return nil
        }
    }

    public var description: String {
        switch self {
        case .invalidDeviceToken(let error):
            return "invalid \(error)"
        case .emptyTopic:
            return "apns-topic is empty: set it to the app's bundle ID (plus the push type's suffix)"
        case .topicMissingSuffix(let topic, let pushType, let suffix):
            return "apns-topic \"\(topic)\" does not fit push type \(pushType): it must be the bundle ID followed by "
                + "\"\(suffix)\" (for example \"com.example.app\(suffix)\")"
        case .topicHasSuffixOfOtherPushType(let topic, let pushType, let other):
            return "apns-topic \"\(topic)\" ends with \"\(other.requiredTopicSuffix ?? "")\", the suffix of push type "
                + "\(other), but the push type is \(pushType): use the bare bundle ID, or set push type \(other)"
        case .collapseIDTooLong(let size, let limit):
            return "apns-collapse-id is \(size) bytes, over the limit of \(limit) bytes (UTF-8): shorten it"
        case .invalidPriority(let value):
            return "apns-priority \(value) is not valid: use 10 (immediately), 5 (considering device power) or 1"
        case .backgroundPriorityTooHigh:
            return "a background push must use apns-priority 5, not 10: APNs rejects priority 10 for background pushes"
        case .priorityNotAllowed(let value, let pushType, let allowed):
            return "apns-priority \(value) is not allowed for push type \(pushType): use "
                + allowed.map(String.init).joined(separator: " or ")
        case .negativeExpiration(let value):
            return "apns-expiration \(value) is negative: give UNIX seconds, or 0 to deliver once without storing"
        case .payloadEmpty:
            return "the payload is empty: send a JSON object such as {\"aps\":{\"alert\":\"…\"}}"
        case .customKeyNamedAps:
            return "a custom payload key is named \"aps\", which clashes with the aps dictionary: rename it"
        case .backgroundWithoutContentAvailable:
            return "a background push needs aps.content-available = 1: set it, or use push type alert"
        case .backgroundWithUserVisibleContent(let keys):
            return "a background push must not carry \(keys.joined(separator: ", ")) in aps (only content-available): "
                + "remove them, or send push type alert"
        case .payloadTooLarge(let size, let limit, let pushType):
            return "the payload is \(size) bytes, over the \(limit)-byte limit for push type \(pushType): "
                + "shorten it by \(size - limit) bytes"
        case .liveActivityWithoutEvent:
            return "a Live Activity push needs aps.event: start, update or end"
        case .liveActivityWithoutTimestamp:
            return "a Live Activity push needs aps.timestamp (UNIX seconds it was sent; the device keeps the newest)"
        case .unknownLiveActivityEvent(let event):
            return "aps.event \"\(event)\" is not a Live Activity event: use start, update or end"
        case .liveActivityStartIncomplete(let missing):
            return "a Live Activity start needs \(missing.joined(separator: ", ")) in aps (alert, attributes-type and "
                + "attributes start the activity)"
        }
    }
}
