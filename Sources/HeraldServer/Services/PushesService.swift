import APNSCore
import Foundation
import HeraldStore

/// Sending: accept a push (stored before the caller hears back, de-duplicated by idempotency key), size
/// it without sending (dry run), report its state and per-device outcomes, list and cancel.
struct PushesService: Sendable {
    let env: ServiceEnvironment
    let engine: DeliveryEngine

    /// A stored push; `created` is false when the idempotency key was seen with the same request (a replay).
    struct Accepted {
        var push: Report
        var created: Bool
        /// Listed targets (tokens, ids, aliases, user ids) that match no active installation: reported, never fatal.
        var unresolved: [String]
    }

    /// What a push would do, with nothing stored.
    struct DryRun: Sendable, Equatable {
        var audience: Int
        var unresolved: [String]
        var environments: [String: Int]
        var pushType: APNSPushType
        var priority: Int
        /// The largest variant's payload.
        var payloadBytes: Int
        /// The exact payload of each variant ("" is the default, then each `content.localized` key), as a
        /// device whose badge is 0 gets it, with the push id the push would have.
        var variants: [Variant] = []
        /// The `apns-*` request headers every delivery carries (`apns-id` and `apns-expiration` vary or may be absent).
        var headers: [String: String] = [:]

        struct Variant: Sendable, Equatable {
            var locale: String
            var payload: [UInt8]
        }
    }

    /// A push as callers see it.
    struct Report {
        var push: PushRecord
        /// Failed deliveries by reason.
        var failures: [String: Int]
        /// Set while an unfinished push waits for its app's credential to be fixed.
        var paused: (reason: String, since: Date?)?
        /// Per-device outcomes, when asked for.
        var deliveries: Page<Delivery, Int64>?

        var pending: Int { max(0, push.counts.targeted - push.counts.sent - push.counts.failed - push.counts.cancelled) }
    }

    struct Delivery {
        var record: DeliveryRecord
        /// The apns-id the delivery carried, for sent ones (derived from push and installation, not stored).
        var apnsID: UUID?
    }

    /// Which delivery rows a report includes.
    struct DeliveryPage: Sendable {
        var state: DeliveryState?
        var after: Int64 = 0
        var limit: Int = 100
    }

    /// Stores the push (before returning, so it survives a crash) and wakes the engine. `id` names the push
    /// when a dialect needs its own id form (JPush's numeric msg_id); by default the service makes one.
    /// `requireReach`: store the push only if its audience reaches an installation, else throw
    /// `AudienceReachesNoOne` (checked in the insert's transaction, no read of its own; JPush's 1011).
    func create(appID: String, _ input: PushInput, id: String? = nil, requireReach: Bool = false) async throws -> Accepted {
        let spec = input.spec
        let now = env.clock.now()
        let status: PushStatus = (spec.sendAt.map { $0 > now } ?? false) ? .scheduled : .queued
        var incrementsBadge = false
        if case .add = spec.content.badge?.change { incrementsBadge = true }
        // The express lane's reads (audience, credentials) go first, ahead of the app and the insert: they are
        // on the path to the device, and the store's reader takes reads in the order they come. Nothing is
        // sent before the push is stored: the lane starts only in `submitted`.
        let reads = status == .queued ? engine.readAhead(appID: appID, selector: spec.selector, incrementsBadge: incrementsBadge) : nil
        // Read beside the app and the insert, not after them: the answer then waits for no read of its own.
        async let unresolvedTargets = unresolved(spec, appID: appID)
        let (app, id, _) = try await admit(spec, appID: appID, id: id)
        let record = PushRecord(id: id, appID: appID, idempotencyKey: spec.idempotencyKey, request: JSON.object(input.document).encoded,
                                status: status, createdAt: now, sendAt: spec.sendAt, expiresAt: spec.expiration)
        let stored: PushRecord, created: Bool
        do {
            (stored, created) = try await env.store.insertPush(record, idempotentSince: now.addingTimeInterval(-env.configuration.idempotencyWindow),
                                                               reaching: requireReach ? spec.selector : nil)
        } catch StoreError.notFound {
            // Deleted through another node since this one read the app (`AppRecordCache`).
            env.apps.forget(id: appID)
            throw ServiceError.notFound("App \(appID)")
        }
        if created {
            env.metrics.increment("herald_pushes_accepted_total")
            // A small push goes out from here at once (the engine's express lane), not at its next round.
            engine.submitted(stored, app: app, reads: reads, spec: spec)
        } else if stored.request != record.request {
            throw ServiceError.conflict("Idempotency key \(spec.idempotencyKey ?? "") was used for a different push (\(stored.id)) in the last 24 hours; use a new key for a new push.",
                                        code: "idempotency_conflict", field: "idempotencyKey")
        }
        // A push stored just now has no deliveries yet, so no failures to read (its counts are the stored zeros).
        return Accepted(push: try await report(stored, app: app, failures: created ? [:] : nil), created: created,
                        unresolved: try await unresolvedTargets)
    }

    /// Validates and sizes the audience as `create` would, without storing anything.
    func dryRun(appID: String, _ input: PushInput) async throws -> DryRun {
        let spec = input.spec
        let (app, id, payloadBytes) = try await admit(spec, appID: appID)
        let (count, environments) = try await audience(appID: appID, spec)
        let badge: Int? = switch spec.content.badge {
        case .set(let n)?, .increment(let n)?: n
        case .decrement?: 0
        case nil: nil
        }
        var headers = ["apns-push-type": spec.pushType.rawValue, "apns-priority": String(spec.priority), "apns-topic": spec.topic ?? app.topic ?? ""]
        if let expiration = spec.expiration { headers["apns-expiration"] = String(Int(expiration.timeIntervalSince1970)) }
        if let collapse = spec.collapseID { headers["apns-collapse-id"] = collapse }
        return DryRun(audience: count, unresolved: try await unresolved(spec, appID: appID), environments: environments,
                      pushType: spec.pushType, priority: spec.priority, payloadBytes: payloadBytes,
                      variants: ([""] + spec.content.localized.keys.sorted()).map {
                          DryRun.Variant(locale: $0, payload: spec.content.payload(variant: $0, badge: badge, pushID: id))
                      }, headers: headers)
    }

    /// How many installations the push reaches now, by environment; counting stops past `limit` (so
    /// "does it reach anyone" reads one row, not the whole audience).
    func audience(appID: String, _ spec: PushSpec, upTo limit: Int = .max) async throws -> (count: Int, environments: [String: Int]) {
        var count = 0, after: Int64 = 0
        var environments: [String: Int] = [:]
        let pageSize = spec.filter.isEmpty ? min(5_000, limit) : 5_000
        while count < limit {
            let page = try await env.store.audience(appID: appID, selector: spec.selector, after: after, limit: pageSize)
            for m in page where spec.filter.isEmpty || spec.filter.matches(m) {
                count += 1
                environments[m.environment, default: 0] += 1
            }
            guard page.count == pageSize, let last = page.last else { break }
            after = last.seq
        }
        return (count, environments)
    }

    /// What the push needs beyond its own fields: an app with a topic, and a payload APNs accepts. Returns the
    /// app, the new push's id (the payload carries it, so it counts in the size) and the largest payload.
    private func admit(_ spec: PushSpec, appID: String, id: String? = nil) async throws -> (AppRecord, String, Int) {
        guard let app = try await env.apps.app(id: appID, now: env.clock.now(), read: { try await env.store.app(id: appID) }) else {
            throw ServiceError.notFound("App \(appID)")
        }
        guard spec.topic != nil || app.topic != nil else {
            throw ServiceError(.invalid, code: "missing_topic", message: "No apns-topic: set the app's topic (PATCH /v1/apps/{appId}) or options.topic.", field: "options.topic")
        }
        // Time-ordered: the push's deliveries then go to the end of the deliveries' push index (`TimeOrderedID`).
        let id = id ?? TimeOrderedID.next()
        let size = spec.content.largestPayloadSize(pushID: id)
        let limit = spec.pushType.payloadSizeLimit
        if size > limit {
            throw ServiceError(.invalid, code: "payload_too_large", message: "The payload is \(size) bytes (largest variant); APNs accepts at most \(limit).", field: "content")
        }
        return (app, id, size)
    }

    /// Reported, never fatal: a stale token in a list must not stop the rest.
    private func unresolved(_ spec: PushSpec, appID: String) async throws -> [String] {
        try await env.store.unresolvedTargets(appID: appID, source: spec.selector.source, limit: 100)
    }

    func get(appID: String, id: String, deliveries: DeliveryPage? = nil) async throws -> Report {
        guard let p = try await env.store.push(appID: appID, id: id) else { throw Self.notFound(id) }
        return try await report(p, app: try await env.store.app(id: appID), deliveries: deliveries)
    }

    /// Newest first.
    func list(appID: String, status: PushStatus? = nil, before: Date? = nil, limit: Int = 50) async throws -> [Report] {
        let app = try await env.store.app(id: appID)
        var reports: [Report] = []
        for p in try await env.store.pushes(appID: appID, status: status, before: before, limit: limit) {
            reports.append(try await report(p, app: app))
        }
        return reports
    }

    /// Deliveries not yet sent are dropped; a finished push is a conflict.
    func cancel(appID: String, id: String) async throws -> Report {
        do {
            guard let p = try await env.store.cancelPush(appID: appID, id: id, now: env.clock.now()) else { throw Self.notFound(id) }
            return try await report(p, app: nil)
        } catch StoreError.conflict(let message) {
            throw ServiceError.conflict("\(message); only scheduled, queued or sending pushes can be cancelled.", code: "push_finished")
        }
    }

    /// `failures` when the caller knows them (none, for a push just stored); else they are read.
    private func report(_ p: PushRecord, app: AppRecord?, deliveries page: DeliveryPage? = nil, failures known: [String: Int]? = nil) async throws -> Report {
        let failures = if let known { known } else { try await env.store.failureReasons(pushID: p.id) }
        var report = Report(push: p, failures: failures,
                            paused: (!p.status.isFinal ? app?.pausedReason : nil).map { ($0, app?.pausedAt) })
        if let page {
            let rows = try await env.store.deliveries(pushID: p.id, state: page.state, afterID: page.after, limit: page.limit)
            let items = rows.map { d in
                Delivery(record: d, apnsID: d.state == .sent ? stableAPNsID(pushID: p.id, installationID: d.installationID) : nil)
            }
            report.deliveries = Page(items, limit: page.limit) { $0.record.id }
        }
        return report
    }

    static func notFound(_ id: String) -> ServiceError { .notFound("Push \(id)") }
}
