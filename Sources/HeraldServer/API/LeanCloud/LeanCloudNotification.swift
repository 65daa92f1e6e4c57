import Foundation
import HeraldStore

/// A Herald push as LeanCloud's `_Notification` record (what `Notification.fetch()` in the SDKs and console-era
/// scripts read): `status` in-queue / scheduled / done, `devices` (targeted), `successes` (handed to APNs) and
/// `errors` (failed), the request's `where`/`data`/`prod`, and Herald's own counts under the same names.
enum LeanCloudNotification {
    static func json(_ report: PushesService.Report) -> [String: JSON] {
        let p = report.push
        let status: String = switch p.status {
        case .scheduled: "scheduled"
        case .queued, .sending: "in-queue"
        case .done, .cancelled, .failed: "done"
        }
        var o: [String: JSON] = [
            "objectId": .string(p.id), "status": .string(status), "heraldStatus": .string(p.status.rawValue),
            "devices": .int(p.counts.targeted), "successes": .int(p.counts.sent), "iosSuccesses": .int(p.counts.sent),
            "errors": .int(p.counts.failed), "invalidTokens": .int(p.counts.retired), "opened": .int(p.counts.opened),
            "cancelled": .int(p.counts.cancelled), "from-service": "push",
            "createdAt": ISO8601.json(p.createdAt), "updatedAt": ISO8601.json(p.updatedAt),
        ]
        if let at = p.sendAt { o["push_time"] = .string(ISO8601.string(at)) }
        if let at = p.expiresAt { o["expiration_time"] = .string(ISO8601.string(at)) }
        if !report.failures.isEmpty { o["failures"] = .object(report.failures.mapValues { .int($0) }) }
        if let request = try? JSON(parsing: p.request) {
            o["data"] = request["content"] ?? .null
            o["where"] = request["target"] ?? .null
            switch request["target"]?["environment"]?.stringValue {
            case "sandbox"?: o["prod"] = "dev"
            case "production"?: o["prod"] = "prod"
            default: break
            }
        }
        return o
    }
}
