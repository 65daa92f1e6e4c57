import Foundation

/// What a provider connection sends again and again (one topic, one payload for a broadcast or a fan-out
/// variant), checked once while it repeats. Kept per connection, on its loop thread.
struct RepeatedRequestChecks {
    private var lastTopic: (topic: String, rule: PushTypeRule, bundleID: String)?
    private var lastPayload: (bytes: [UInt8], badge: Int?)?

    /// The push-type rule a topic implies and the bundle id it names (`PushTypeRule.split`).
    mutating func split(topic: String) -> (rule: PushTypeRule, bundleID: String) {
        if let last = lastTopic, last.topic == topic { return (last.rule, last.bundleID) }
        let (rule, bundleID) = PushTypeRule.split(topic: topic)
        lastTopic = (topic, rule, bundleID)
        return (rule, bundleID)
    }

    /// `body` if it is a JSON object (nil otherwise), with the badge it sets.
    mutating func checkedPayload(_ body: [UInt8]) -> (bytes: [UInt8], badge: Int?)? {
        if let last = lastPayload, last.bytes.count == body.count,
           last.bytes.withUnsafeBytes({ a in body.withUnsafeBytes { b in memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 } }) {
            return last
        }
        guard JSONSyntax.isObject(body) else { return nil }
        let checked = (bytes: body, badge: SimulatedNotification.badge(in: body))
        lastPayload = checked
        return checked
    }
}
