import Foundation

/// JSON shapes of the inspection API. Payloads are embedded as JSON (or as text when not JSON), times
/// as ISO 8601 with milliseconds and as epoch milliseconds.
enum InspectionJSON {
    static func text(_ object: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed]) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    static func bytes(_ object: Any) -> [UInt8] { Array(text(object).utf8) }

    static func time(_ date: Date?) -> Any {
        guard let date else { return NSNull() }
        return date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    static func payload(_ bytes: [UInt8]) -> Any {
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) ?? String(decoding: bytes, as: UTF8.self)
    }

    static func notification(_ n: SimulatedNotification) -> [String: Any] {
        [
            "apnsId": n.apnsID, "deviceToken": n.deviceToken, "bundleId": n.bundleID, "topic": n.topic,
            "pushType": n.pushType, "priority": n.priority, "collapseId": n.collapseID ?? NSNull(),
            "expiration": n.expiration.map { Int64($0.timeIntervalSince1970) } ?? NSNull(),
            "headers": n.headers.dictionary, "payload": payload(n.payload), "source": n.source.rawValue,
            "receivedAt": time(n.receivedAt), "deliveredAt": time(n.deliveredAt),
        ]
    }

    static func open(_ o: OpenReport) -> [String: Any] {
        [
            "deviceId": o.deviceID, "bundleId": o.bundleID, "deviceToken": o.deviceToken, "apnsId": o.apnsID,
            "openedAt": time(o.openedAt), "openedAtMs": millis(o.openedAt),
            "custom": o.customPayload.map { payload(Array($0.utf8)) } ?? NSNull(),
        ]
    }

    static func app(_ a: AppInstallation) -> [String: Any] {
        [
            "bundleId": a.bundleID, "environment": a.environment.rawValue, "token": a.token,
            "installedAt": time(a.installedAt), "uninstalledAt": time(a.uninstalledAt),
        ]
    }

    static func device(_ d: Device, detailed: Bool) -> [String: Any] {
        var out: [String: Any] = [
            "id": d.id, "name": d.name, "online": d.online, "createdAt": time(d.createdAt),
            "apps": d.apps.map(app), "badges": d.badges,
            "receivedCount": d.inbox.count, "storedCount": d.stored.count, "heldCount": d.held.count,
        ]
        if detailed {
            out["stored"] = d.stored.values.sorted { $0.receivedAt < $1.receivedAt }.map(notification)
            out["held"] = d.held.map(notification)
            out["opens"] = d.opens.map(open)
        }
        return out
    }

    static func statistics(_ s: SimulatorStatistics) -> [String: Any] {
        [
            "accepted": s.accepted, "rejected": s.rejected, "rejectedTotal": s.rejectedTotal, "delivered": s.delivered,
            "stored": s.stored, "replacedWhileStored": s.replacedWhileStored, "droppedExpired": s.droppedExpired,
            "held": s.held, "duplicates": s.duplicates, "opens": s.opens, "faults": s.faults,
        ]
    }

    static func error(code: String, message: String, field: String? = nil) -> [UInt8] {
        var e: [String: Any] = ["code": code, "message": message]
        if let field { e["field"] = field }
        return bytes(["error": e])
    }
}
