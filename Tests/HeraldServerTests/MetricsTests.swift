import Testing
@testable import HeraldServer

@Suite struct MetricsTests {
    /// A key adds to its series without a lock: increments from many threads at once, through keys and by
    /// name, all count, and a gauge set through a key reads back.
    @Test func concurrentIncrementsThroughKeysAndNamesAllCount() async {
        let metrics = Metrics()
        let requests = metrics.key("herald_apns_requests_total")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { for _ in 0..<10_000 { metrics.increment(requests) } } }
            for _ in 0..<2 { group.addTask { for _ in 0..<1_000 { metrics.increment("herald_apns_requests_total", by: 0.5) } } }
        }
        #expect(metrics.value("herald_apns_requests_total") == 81_000)
        #expect(metrics.text().contains("herald_apns_requests_total 81000\n"))
        metrics.set(metrics.key("herald_apns_in_flight_window"), 256)
        #expect(metrics.value("herald_apns_in_flight_window") == 256)
    }

    /// Buckets are counted apart and rendered cumulative, as Prometheus reads them.
    @Test func histogramsRenderCumulativeBucketsSumAndCount() {
        let metrics = Metrics()
        let latency = metrics.histogram("herald_apns_latency_seconds")
        for value in [0.003, 0.02, 0.02, 100] { latency.observe(value) }
        metrics.observe("herald_apns_latency_seconds", 0.5)  // by name: the same histogram
        let text = metrics.text()
        #expect(text.contains("# TYPE herald_apns_latency_seconds histogram"))
        #expect(text.contains(#"herald_apns_latency_seconds_bucket{le="0.005"} 1"#))
        #expect(text.contains(#"herald_apns_latency_seconds_bucket{le="0.025"} 3"#))
        #expect(text.contains(#"herald_apns_latency_seconds_bucket{le="0.5"} 4"#))
        #expect(text.contains(#"herald_apns_latency_seconds_bucket{le="30.0"} 4"#))
        #expect(text.contains(#"herald_apns_latency_seconds_bucket{le="+Inf"} 5"#))
        #expect(text.contains("herald_apns_latency_seconds_count 5"))
        #expect(text.contains("herald_apns_latency_seconds_sum 100.543"))
    }
}
