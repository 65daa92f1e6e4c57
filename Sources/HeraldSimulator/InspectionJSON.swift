import Foundation
import HeraldJSON

/// JSON shapes of the inspection API and the device streams. Payloads are embedded as JSON (or as text
/// when not JSON), times as ISO 8601 with milliseconds and as epoch milliseconds.
///
/// Written with HeraldJSON, not Foundation's `JSONSerialization`: a device stream writes one of these per
/// notification, on the path every push's latency is measured through (bench row 6), and there sorting
/// keys with ICU's collation and bridging every value cost ~0.4 ms of CPU per event.
enum InspectionJSON {
    static func bytes(_ value: JSONValue) -> [UInt8] { value.jsonBytes() }

    static func time(_ date: Date?) -> JSONValue {
        guard let date else { return .null }
        let text = ISO8601Timestamp.utc(millisecondsSince1970: millis(date))
            ?? date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        return .string(text)
    }

    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    static func payload(_ bytes: [UInt8]) -> JSONValue {
        (try? JSONValue(parsing: bytes)) ?? .string(String(decoding: bytes, as: UTF8.self))
    }

    static func string(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    static func counts(_ counts: [String: Int]) -> JSONValue {
        var object = JSONObject()
        for (key, count) in counts.sorted(by: { $0.key < $1.key }) { object[key] = .int(count) }
        return .object(object)
    }

    static func notification(_ n: SimulatedNotification) -> JSONValue {
        var headers = JSONObject()
        for field in n.headers.fields where !headers.contains(field.name) { headers[field.name] = .string(field.value) }
        return [
            "apnsId": .string(n.apnsID), "deviceToken": .string(n.deviceToken), "bundleId": .string(n.bundleID), "topic": .string(n.topic),
            "pushType": .string(n.pushType), "priority": .int(n.priority), "collapseId": string(n.collapseID),
            "expiration": n.expiration.map { .int(Int($0.timeIntervalSince1970)) } ?? .null,
            "headers": .object(headers), "payload": payload(n.payload), "source": .string(n.source.rawValue),
            "receivedAt": time(n.receivedAt), "deliveredAt": time(n.deliveredAt),
        ]
    }

    static func open(_ o: OpenReport) -> JSONValue {
        [
            "deviceId": .string(o.deviceID), "bundleId": .string(o.bundleID), "deviceToken": .string(o.deviceToken), "apnsId": .string(o.apnsID),
            "openedAt": time(o.openedAt), "openedAtMs": .int(Int(millis(o.openedAt))),
            "custom": o.customPayload.map { payload(Array($0.utf8)) } ?? .null,
        ]
    }

    static func app(_ a: AppInstallation) -> JSONValue {
        [
            "bundleId": .string(a.bundleID), "environment": .string(a.environment.rawValue), "token": .string(a.token),
            "installedAt": time(a.installedAt), "uninstalledAt": time(a.uninstalledAt),
        ]
    }

    static func device(_ d: Device, detailed: Bool) -> JSONValue {
        var out: JSONObject = [
            "id": .string(d.id), "name": .string(d.name), "online": .bool(d.online), "createdAt": time(d.createdAt),
            "apps": .array(d.apps.map(app)), "badges": counts(d.badges),
            "receivedCount": .int(d.inbox.count), "storedCount": .int(d.stored.count), "heldCount": .int(d.held.count),
        ]
        if detailed {
            out["stored"] = .array(d.stored.values.sorted { $0.receivedAt < $1.receivedAt }.map(notification))
            out["held"] = .array(d.held.map(notification))
            out["opens"] = .array(d.opens.map(open))
        }
        return .object(out)
    }

    static func statistics(_ s: SimulatorStatistics) -> JSONValue {
        [
            "accepted": .int(s.accepted), "rejected": counts(s.rejected), "rejectedTotal": .int(s.rejectedTotal), "delivered": .int(s.delivered),
            "stored": .int(s.stored), "replacedWhileStored": .int(s.replacedWhileStored), "droppedExpired": .int(s.droppedExpired),
            "held": .int(s.held), "duplicates": counts(s.duplicates), "opens": .int(s.opens), "faults": counts(s.faults),
        ]
    }

    static func error(code: String, message: String, field: String? = nil) -> [UInt8] {
        var e: JSONObject = ["code": .string(code), "message": .string(message)]
        if let field { e["field"] = .string(field) }
        return bytes(["error": .object(e)])
    }
}
