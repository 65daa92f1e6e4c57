import Foundation
import HeraldStore

/// An app's numbers over time for dashboards (the console's Overview): pushes and what became of their
/// deliveries per interval, installations, and the delivery queue.
struct StatisticsService: Sendable {
    let env: ServiceEnvironment

    enum Interval: String, Sendable, CaseIterable {
        case hour, day
        var seconds: TimeInterval { self == .hour ? 3_600 : 86_400 }
    }

    struct Report: Sendable {
        /// One per interval, oldest first, the current one last; intervals without pushes are zeros.
        var buckets: [PushStatisticsBucket]
        var installations: InstallationCounts
        /// Deliveries waiting to be sent, all apps of this server together.
        var pendingDeliveries: Int
    }

    /// The last `count` intervals, the current one included.
    func report(appID: String, interval: Interval, count: Int) async throws -> Report {
        guard (1...366).contains(count) else { throw ServiceError.invalid("limit", "limit must be between 1 and 366 intervals.") }
        guard try await env.store.app(id: appID) != nil else { throw ServiceError.notFound("App \(appID)") }
        let step = interval.seconds
        let current = (env.clock.now().timeIntervalSince1970 / step).rounded(.down)
        let first = current - Double(count - 1)
        let since = Date(timeIntervalSince1970: first * step)
        let found = Dictionary(try await env.store.pushStatistics(appID: appID, since: since, interval: step).map { ($0.start, $0) },
                               uniquingKeysWith: { a, _ in a })
        let buckets = (0..<count).map { i -> PushStatisticsBucket in
            let start = Date(timeIntervalSince1970: (first + Double(i)) * step)
            return found[start] ?? PushStatisticsBucket(start: start)
        }
        return Report(buckets: buckets, installations: try await env.store.installationCounts(appID: appID),
                      pendingDeliveries: try await env.store.pendingDeliveryCount())
    }
}
