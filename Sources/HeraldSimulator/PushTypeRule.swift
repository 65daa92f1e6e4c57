import Foundation
import APNSCore

/// What each `apns-push-type` requires of the topic, the priority and the payload.
/// (APNs' table, docs/apns-reference.md §1.3.) A class: a handful of shared constants, passed around
/// per request, where a struct would retain each of its fields on every copy.
final class PushTypeRule: Sendable {
    let name: String
    /// What the topic must end with, after the bundle id; "" for the bare bundle id; nil = any topic (mdm).
    let topicSuffix: String?
    let maxPayload: Int
    /// Priorities allowed beside the general 10/5/1 check; nil = all three.
    let priorities: Set<Int>?
    /// False for push types APNs accepts only over token auth.
    let allowedWithCertificate: Bool

    init(name: String, topicSuffix: String?, maxPayload: Int, priorities: Set<Int>?, allowedWithCertificate: Bool) {
        self.name = name
        self.topicSuffix = topicSuffix
        self.maxPayload = maxPayload
        self.priorities = priorities
        self.allowedWithCertificate = allowedWithCertificate
    }

    /// One rule per push type APNSCore knows, with APNSCore's suffixes, limits and priorities.
    static let all: [PushTypeRule] = APNSPushType.allKnown.map { type in
        PushTypeRule(
            name: type.rawValue,
            topicSuffix: type == .mdm ? nil : (type.requiredTopicSuffix ?? ""),
            maxPayload: type.payloadSizeLimit,
            priorities: type.allowedPriorities.map { Set($0.map(\.rawValue)) },
            allowedWithCertificate: !type.requiresTokenAuthentication)
    }

    static let byName: [String: PushTypeRule] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    private static let alert = byName["alert"]!

    /// Suffixes longest first so `.push-type.liveactivity` is not mistaken for a bare bundle id.
    private static let suffixed: [PushTypeRule] = all.filter { ($0.topicSuffix ?? "").isEmpty == false }
        .sorted { $0.topicSuffix!.count > $1.topicSuffix!.count }

    /// The push type a topic implies when `apns-push-type` is absent, and the bundle id it names.
    static func split(topic: String) -> (rule: PushTypeRule, bundleID: String) {
        // Over the topic's bytes, suffixes prepared once: this runs for every request validated.
        var text = topic
        let match: (rule: PushTypeRule, length: Int)? = text.withUTF8 { bytes in
            for (rule, suffix) in suffixBytes where bytes.count > suffix.count {
                let tail = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[(bytes.count - suffix.count)...])
                if suffix.withUnsafeBytes({ memcmp($0.baseAddress!, tail.baseAddress!, suffix.count) == 0 }) {
                    return (rule, suffix.count)
                }
            }
            return nil
        }
        guard let match else { return (alert, topic) }
        return (match.rule, String(topic.utf8.dropLast(match.length))!)
    }

    private static let suffixBytes: [(PushTypeRule, [UInt8])] = suffixed.map { ($0, Array($0.topicSuffix!.utf8)) }
}
