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
        // Members are read in place, field by field: a member copied out of the array (iterating it, or passing
        // one to a function) retains all seven of its strings, on the fan-out's busiest path.
        let filtered = !spec.filter.isEmpty
        var planned: [PlannedDelivery] = []
        planned.reserveCapacity(members.count)
        for i in members.indices {
            if filtered && !spec.filter.matches(members[i]) { continue }
            planned.append(PlannedDelivery(seq: members[i].seq, installationID: members[i].id, deviceToken: members[i].deviceToken,
                                           environment: members[i].environment, variant: spec.content.variant(for: members[i].locale),
                                           notBefore: notBefore(base: base, timeZone: members[i].timeZone, zones: &zones)))
        }
        return planned
    }

    /// When a member in `timeZone` may receive the push: `base`, or with a local send time, that time where it is.
    private func notBefore(base: Date, timeZone id: String?, zones: inout [String: TimeZone]) -> Date {
        guard let local = spec.localTime else { return base }
        let zone: TimeZone
        if let id {
            if let z = zones[id] { zone = z } else { zone = TimeZone(identifier: id) ?? defaultTimeZone; zones[id] = zone }
        } else {
            zone = defaultTimeZone
        }
        return local.next(after: spec.sendAt ?? push.createdAt, in: zone)
    }
}
