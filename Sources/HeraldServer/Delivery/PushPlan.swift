import Foundation
import Synchronization
import HeraldStore

/// A push being delivered: its parsed request plus a cache of encoded payloads, one per (variant, badge).
/// Memory stays bounded by the number of variants, never by the audience.
final class PushPlan: Sendable {
    let push: PushRecord
    let spec: PushSpec
    let topic: String
    let defaultTimeZone: TimeZone
    private let payloads = Mutex<[String: [UInt8]]>([:])

    init(push: PushRecord, spec: PushSpec, topic: String, defaultTimeZone: TimeZone) {
        self.push = push; self.spec = spec; self.topic = topic; self.defaultTimeZone = defaultTimeZone
    }

    /// The badge every installation gets when the push sets one (increments are applied per installation
    /// at fan-out instead).
    var badgeValue: Int? {
        if case .set(let n)? = spec.content.badge?.change { n } else { nil }
    }

    func payload(variant: String, badge: Int?) -> [UInt8] {
        let key = "\(variant)|\(badge.map(String.init) ?? "")"
        // Encoded under the lock: concurrent batches asking for the same variant must share one buffer.
        return payloads.withLock { cache in
            if let cached = cache[key] { return cached }
            let bytes = spec.content.payload(variant: variant, badge: badge, pushID: push.id)
            cache[key] = bytes
            return bytes
        }
    }

    /// Fan-out planning for one page: filters, picks each member's variant and earliest send time.
    func plan(_ members: [AudienceMember], now: Date) -> [PlannedDelivery] {
        // Stored times come back through SQLite's REAL seconds since 1970, a hair off the Date they were
        // made from: a push created "now" must not read as due a fraction of a microsecond later.
        let start = spec.sendAt ?? push.createdAt
        let base = start.timeIntervalSince(now) < 0.001 ? now : start
        var zones: [String: TimeZone] = [:]
        return members.compactMap { m in
            guard spec.filter.isEmpty || spec.filter.matches(m) else { return nil }
            var notBefore = base
            if let local = spec.localTime {
                let zone: TimeZone
                if let id = m.timeZone {
                    if let z = zones[id] { zone = z } else { zone = TimeZone(identifier: id) ?? defaultTimeZone; zones[id] = zone }
                } else {
                    zone = defaultTimeZone
                }
                notBefore = local.next(after: spec.sendAt ?? push.createdAt, in: zone)
            }
            return PlannedDelivery(seq: m.seq, installationID: m.id, deviceToken: m.deviceToken, environment: m.environment,
                                   variant: spec.content.variant(for: m.locale), notBefore: notBefore)
        }
    }
}
