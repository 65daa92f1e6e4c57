import Foundation

/// A schedule made through the JPush-compatible API (`/v3/schedules`): JPush's own fields, kept as JPush
/// clients sent them so they read back unchanged, and the Herald push that carries out its trigger.
public struct JPushScheduleRecord: Sendable, Equatable {
    public var appID: String
    /// JPush's `schedule_id` (a UUID).
    public var id: String
    public var name: String
    public var enabled: Bool
    /// The `trigger` object as JSON text.
    public var trigger: String
    /// The `push` object (a `/v3/push` body) as JSON text.
    public var push: String
    /// The Herald push scheduled for the trigger; nil while the schedule is disabled.
    public var pushID: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(appID: String, id: String, name: String, enabled: Bool, trigger: String, push: String, pushID: String?,
                createdAt: Date, updatedAt: Date) {
        self.appID = appID; self.id = id; self.name = name; self.enabled = enabled; self.trigger = trigger
        self.push = push; self.pushID = pushID; self.createdAt = createdAt; self.updatedAt = updatedAt
    }
}
