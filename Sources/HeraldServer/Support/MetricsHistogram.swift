import Synchronization

extension Metrics {
    /// A Prometheus histogram: counts per bucket kept apart and summed up only when rendered, so an
    /// observation (one per APNs answer) costs one lock and three additions.
    public final class Histogram: Sendable {
        let name: String
        let bounds: [Double]
        /// Observations per bucket (the last one is +Inf, above every bound), their sum and count.
        private let state: Mutex<(perBucket: [Double], sum: Double, count: Double)>

        init(name: String, bounds: [Double]) {
            self.name = name
            self.bounds = bounds
            state = Mutex((Array(repeating: 0, count: bounds.count + 1), 0, 0))
        }

        public func observe(_ value: Double) {
            let bucket = bounds.firstIndex { value <= $0 } ?? bounds.count
            state.withLock { s in
                s.perBucket[bucket] += 1
                s.sum += value
                s.count += 1
            }
        }

        /// The exposition series: cumulative `_bucket{le=...}`, `_sum` and `_count`.
        func series() -> [(Series, Double)] {
            let (perBucket, sum, count) = state.withLock { ($0.perBucket, $0.sum, $0.count) }
            var out: [(Series, Double)] = []
            var cumulative = 0.0
            for (i, bound) in bounds.enumerated() {
                cumulative += perBucket[i]
                out.append((Series(name: name + "_bucket", labels: Metrics.render([("le", String(bound))])), cumulative))
            }
            out.append((Series(name: name + "_bucket", labels: Metrics.render([("le", "+Inf")])), count))
            out.append((Series(name: name + "_sum", labels: ""), sum))
            out.append((Series(name: name + "_count", labels: ""), count))
            return out
        }
    }
}
