import Testing
@testable import HeraldServer

@Suite struct MetricsTests {
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
