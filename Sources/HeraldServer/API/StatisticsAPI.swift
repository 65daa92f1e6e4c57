import Foundation
import HeraldHTTP

/// An app's statistics over time (`StatisticsService`): what the console's Overview charts.
struct StatisticsAPI {
    let statistics: StatisticsService

    var routes: [Route] {
        [Route("GET", "/v1/stats", .master, "Pushes, deliveries (sent, failed by reason, opened) per hour or day; installations; queue depth.", handler: get)]
    }

    func get(_ ctx: RequestContext) async throws -> HTTPResponse {
        let name = ctx.query("interval") ?? "day"
        guard let interval = StatisticsService.Interval(rawValue: name) else {
            throw APIError.invalidQuery("interval", "interval must be one of \(StatisticsService.Interval.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        let count = try ctx.intQuery("limit", default: interval == .day ? 14 : 24, range: 1...366)
        let r = try await statistics.report(appID: try ctx.appID, interval: interval, count: count)
        return .json(200, [
            "interval": .string(interval.rawValue),
            "buckets": .array(r.buckets.map { b in
                ["start": ISO8601.json(b.start), "pushes": .int(b.pushes), "targeted": .int(b.targeted), "sent": .int(b.sent),
                 "failed": .int(b.failed), "opened": .int(b.opened), "failedByReason": .object(b.failedByReason.mapValues { .int($0) })]
            }),
            "installations": ["active": .int(r.installations.active), "retired": .int(r.installations.retired)],
            "queue": ["pending": .int(r.pendingDeliveries)],
        ])
    }
}
