import APNSCore

/// What each `apns-push-type` requires of the topic, the priority and the payload.
/// (APNs' table, docs/apns-reference.md §1.3.)
struct PushTypeRule: Sendable {
    let name: String
    /// What the topic must end with, after the bundle id; "" for the bare bundle id; nil = any topic (mdm).
    let topicSuffix: String?
    let maxPayload: Int
    /// Priorities allowed beside the general 10/5/1 check; nil = all three.
    let priorities: Set<Int>?
    /// False for push types APNs accepts only over token auth.
    let allowedWithCertificate: Bool

    /// One rule per push type APNSCore knows; the simulator adds only the priority constraints.
    static let all: [PushTypeRule] = APNSPushType.allKnown.map { type in
        PushTypeRule(
            name: type.rawValue,
            topicSuffix: type == .mdm ? nil : (type.requiredTopicSuffix ?? ""),
            maxPayload: type.payloadSizeLimit,
            priorities: type == .background ? [5] : type == .liveactivity ? [5, 10] : nil,
            allowedWithCertificate: !type.requiresTokenAuthentication)
    }

    static let byName: [String: PushTypeRule] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    private static let alert = byName["alert"]!

    /// Suffixes longest first so `.push-type.liveactivity` is not mistaken for a bare bundle id.
    private static let suffixed: [PushTypeRule] = all.filter { ($0.topicSuffix ?? "").isEmpty == false }
        .sorted { $0.topicSuffix!.count > $1.topicSuffix!.count }

    /// The push type a topic implies when `apns-push-type` is absent, and the bundle id it names.
    static func split(topic: String) -> (rule: PushTypeRule, bundleID: String) {
        // Byte comparisons: this runs for every request the simulator validates.
        let bytes = topic.utf8
        for rule in suffixed {
            let suffix = rule.topicSuffix!.utf8
            if bytes.count > suffix.count, bytes.reversed().starts(with: suffix.reversed()) {
                return (rule, String(topic.utf8.dropLast(suffix.count))!)
            }
        }
        return (alert, topic)
    }
}
