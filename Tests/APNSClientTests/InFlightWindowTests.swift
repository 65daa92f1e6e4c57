import Testing
import Synchronization
@testable import APNSClient

/// The in-flight window's parts: the limiter's probe (one request alone on an empty wire) and the size an
/// answer time gives. The window against real peers is in `SimulatorLiveTests`.
@Suite struct InFlightWindowTests {
    /// Resumes once the task it watches is past its `await`.
    final class Flag: Sendable {
        private let value = Atomic(false)
        func set() { value.store(true, ordering: .sequentiallyConsistent) }
        var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
    }

    static func settle() async { for _ in 0..<50 { await Task.yield() }; try? await Task.sleep(for: .milliseconds(20)) }

    @Test func aProbeWaitsForAnEmptyWireAndHoldsEveryoneElseUntilItEnds() async {
        let limiter = InFlightLimiter(limit: 4, floor: 2)
        await limiter.acquire(2)
        let probing = Flag()
        let probe = Task { await limiter.acquireAlone(); probing.set() }
        await Self.settle()
        #expect(!probing.isSet, "the probe went out beside two requests in flight")
        // Room for two more, but the probe has asked for the wire: nobody else gets it.
        let other = Flag()
        let sender = Task { await limiter.acquire(1); other.set() }
        limiter.release(1)
        await Self.settle()
        #expect(!probing.isSet && !other.isSet)
        limiter.release(1)
        await probe.value
        await Self.settle()
        #expect(!other.isSet, "a request went out beside the probe")
        // The probe's answer sizes the limit; the waiting sender goes out.
        limiter.endProbe(limit: 8)
        await sender.value
        #expect(limiter.limit == 8)
        limiter.endProbe(limit: 1)   // a fast peer: not below the floor
        #expect(limiter.limit == 2)
    }

    @Test func theWindowIsTheRequestsTheTargetRateNeedsOverTheAnswerTime() {
        // 100,000/s for 1 ms is 100 requests: below the floor.
        #expect(InFlightWindow.limit(answerTime: 1_000_000, floor: 256, ceiling: 2_000) == 256)
        #expect(InFlightWindow.limit(answerTime: 5_000_000, floor: 256, ceiling: 2_000) == 500)
        // APNs at 40 ms would need 4,000: the ceiling.
        #expect(InFlightWindow.limit(answerTime: 40_000_000, floor: 256, ceiling: 2_000) == 2_000)
        #expect(InFlightWindow.limit(answerTime: .max, floor: 256, ceiling: 2_000) == 2_000)
    }

    @Test func oneProbeAtATimeAndThenNotBeforeTheInterval() {
        let window = InFlightWindow(limiter: InFlightLimiter(limit: 256, floor: 256), ceiling: 2_000, observer: NoObserver())
        #expect(window.probeIsDue(now: 1_000))
        #expect(!window.probeIsDue(now: 2_000), "a second probe while the first runs")
        window.probeEnded(answerTime: 5_000_000)
        #expect(!window.probeIsDue(now: 1_000 + InFlightWindow.probeInterval - 1))
        #expect(window.probeIsDue(now: 1_000 + InFlightWindow.probeInterval))
    }
}
