import Foundation
import HeraldStore

/// Schedules made through the JPush-compatible API: a named single-time trigger and the push it sends.
/// The push is an ordinary Herald scheduled push (`options.sendAt`), created when the schedule is enabled
/// and cancelled when it is disabled, changed or deleted; the schedule row keeps JPush's fields as sent so
/// they read back unchanged. The push is stored before the schedule row: a failure between the two leaves
/// a scheduled push the caller can see in `GET /v1/pushes?status=scheduled`, never a schedule without its push.
struct JPushSchedulesService: Sendable {
    let env: ServiceEnvironment
    let pushes: PushesService

    /// The most schedules an app keeps (JPush allows 100 active ones, 2000 for VIP).
    static let maxSchedules = 2000

    /// A schedule to store: JPush's fields (as JSON text) and, when enabled, the Herald push it sends and its id.
    struct Input: Sendable {
        var name: String
        var enabled: Bool
        var trigger: String
        var push: String
        var send: (input: PushInput, id: String)?
    }

    func create(appID: String, _ input: Input) async throws -> JPushScheduleRecord {
        guard try await env.store.jpushScheduleCount(appID: appID) < Self.maxSchedules else {
            throw ServiceError.invalid("schedule", "The app has \(Self.maxSchedules) schedules, the most it may keep; delete finished ones first.")
        }
        let now = env.clock.now()
        let record = JPushScheduleRecord(appID: appID, id: UUID().uuidString.lowercased(), name: input.name, enabled: input.enabled,
                                         trigger: input.trigger, push: input.push, pushID: try await schedule(appID: appID, input.send),
                                         createdAt: now, updatedAt: now)
        try await env.store.saveJPushSchedule(record)
        return record
    }

    func get(appID: String, id: String) async throws -> JPushScheduleRecord {
        guard let record = try await env.store.jpushSchedule(appID: appID, id: id) else { throw ServiceError.notFound("Schedule \(id)") }
        return record
    }

    /// One page (1-based) of `size` schedules, oldest first, and how many there are.
    func list(appID: String, page: Int, size: Int) async throws -> (items: [JPushScheduleRecord], total: Int) {
        let total = try await env.store.jpushScheduleCount(appID: appID)
        return (try await env.store.jpushSchedules(appID: appID, offset: (page - 1) * size, limit: size), total)
    }

    /// Replaces the schedule's fields: its pending push is cancelled and, when enabled, a new one scheduled.
    func update(appID: String, id: String, _ input: Input) async throws -> JPushScheduleRecord {
        var record = try await get(appID: appID, id: id)
        try await cancelPending(appID: appID, record.pushID)
        record.name = input.name; record.enabled = input.enabled; record.trigger = input.trigger; record.push = input.push
        record.pushID = try await schedule(appID: appID, input.send)
        record.updatedAt = env.clock.now()
        try await env.store.saveJPushSchedule(record)
        return record
    }

    func delete(appID: String, id: String) async throws {
        let record = try await get(appID: appID, id: id)
        try await cancelPending(appID: appID, record.pushID)
        _ = try await env.store.deleteJPushSchedule(appID: appID, id: id)
    }

    /// The pushes the schedule has sent: its push once it left the scheduled state (and was not cancelled).
    func sentPushIDs(appID: String, id: String) async throws -> [String] {
        let record = try await get(appID: appID, id: id)
        guard let pushID = record.pushID, let push = try await env.store.push(appID: appID, id: pushID),
              push.status != .scheduled, push.status != .cancelled else { return [] }
        return [pushID]
    }

    private func schedule(appID: String, _ send: (input: PushInput, id: String)?) async throws -> String? {
        guard let send else { return nil }
        return try await pushes.create(appID: appID, send.input, id: send.id).push.push.id
    }

    /// A push that already went out stays as it is; one still waiting is cancelled.
    private func cancelPending(appID: String, _ pushID: String?) async throws {
        guard let pushID, let push = try await env.store.push(appID: appID, id: pushID), push.status == .scheduled else { return }
        _ = try await pushes.cancel(appID: appID, id: pushID)
    }
}
