import Foundation
import HeraldStore

extension SQLiteStore {
    public func saveJPushSchedule(_ s: JPushScheduleRecord) async throws {
        try await database.write { db in
            try db.execute("""
                INSERT INTO jpush_schedules (app_id, id, name, enabled, trigger, push, push_id, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (app_id, id) DO UPDATE SET name = excluded.name, enabled = excluded.enabled, trigger = excluded.trigger,
                push = excluded.push, push_id = excluded.push_id, updated_at = excluded.updated_at
                """, [.text(s.appID), .text(s.id), .text(s.name), .bool(s.enabled), .text(s.trigger), .text(s.push),
                      .optionalText(s.pushID), s.createdAt.sql, s.updatedAt.sql])
        }
    }

    public func jpushSchedule(appID: String, id: String) async throws -> JPushScheduleRecord? {
        try await database.read {
            try $0.first("SELECT \(Self.jpushScheduleColumns) FROM jpush_schedules WHERE app_id = ? AND id = ?", [.text(appID), .text(id)], Self.jpushSchedule)
        }
    }

    public func jpushSchedules(appID: String, offset: Int, limit: Int) async throws -> [JPushScheduleRecord] {
        try await database.read {
            try $0.all("SELECT \(Self.jpushScheduleColumns) FROM jpush_schedules WHERE app_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?",
                       [.text(appID), .int(limit), .int(offset)], Self.jpushSchedule)
        }
    }

    public func jpushScheduleCount(appID: String) async throws -> Int {
        try await database.read { try $0.first("SELECT count(*) FROM jpush_schedules WHERE app_id = ?", [.text(appID)]) { $0.int(0) } ?? 0 }
    }

    public func deleteJPushSchedule(appID: String, id: String) async throws -> Bool {
        try await database.write { try $0.execute("DELETE FROM jpush_schedules WHERE app_id = ? AND id = ?", [.text(appID), .text(id)]) > 0 }
    }

    static let jpushScheduleColumns = "app_id, id, name, enabled, trigger, push, push_id, created_at, updated_at"

    static func jpushSchedule(_ r: SQLiteRow) -> JPushScheduleRecord {
        JPushScheduleRecord(appID: r.text(0), id: r.text(1), name: r.text(2), enabled: r.bool(3), trigger: r.text(4), push: r.text(5),
                            pushID: r.optionalText(6), createdAt: r.date(7), updatedAt: r.date(8))
    }
}
