import Testing
import Synchronization
@testable import APNSClient

/// The in-flight window's parts: the limiter's probe (one request alone on an empty wire), when a probe
/// starts and ends, and the size an answer time gives. The window against real peers is in `SimulatorLiveTests`.
@Suite struct InFlightWindowTests {
    final class Flag: Sendable {
        private let value = Atomic(false)
        func set() { value.store(true, ordering: .sequentiallyConsistent) }
        var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
    }

    static func settle() async { for _ in 0..<50 { await Task.yield() }; try? await Task.sleep(for: .milliseconds(20)) }

    @Test func aProbeTakesOnlyAnEmptyWireAndHoldsEveryoneElseUntilItEnds() async {
        let limiter = InFlightLimiter(limit: 4, floor: 2)
        await limiter.acquire(2)
        #expect(!limiter.tryAcquireAlone(), "a probe beside two requests in flight")
        limiter.release(2)
        #expect(limiter.tryAcquireAlone())
        #expect(!limiter.tryAcquireAlone(), "two probes at once")
        // Room for three more under the limit, but the probe has the wire: nobody else gets it.
        let other = Flag()
        let sender = Task { await limiter.acquire(1); other.set() }
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

    @Test func oneProbeAtATimeOnAnEmptyWireAndThenNotBeforeTheInterval() async {
        let limiter = InFlightLimiter(limit: 256, floor: 256)
        let window = InFlightWindow(limiter: limiter, ceiling: 2_000, observer: NoObserver())
        await limiter.acquire(1)
        #expect(window.startProbe(now: 1_000) == nil, "a probe while a request is in flight")
        limiter.release(1)
        let first = window.startProbe(now: 1_000)
        #expect(first != nil)
        #expect(window.startProbe(now: 2_000) == nil, "a second probe while the first runs")
        window.probeEnded(first!, answerTime: 5_000_000)
        #expect(limiter.limit == 500)
        limiter.release(1)   // the probe's own answer
        #expect(window.startProbe(now: 1_000 + InFlightWindow.probeInterval - 1) == nil)
        // A clock read before the last probe started is not "due" (no unsigned wrap-around).
        #expect(window.startProbe(now: 500) == nil)
        #expect(window.startProbe(now: 1_000 + InFlightWindow.probeInterval) != nil)
    }

    @Test func aProbeThatTimesOutOpensTheWindowAndItsLateAnswerIsNotCounted() async {
        let limiter = InFlightLimiter(limit: 256, floor: 256)
        let window = InFlightWindow(limiter: limiter, ceiling: 2_000, observer: NoObserver())
        let probe = window.startProbe(now: 1_000)!
        await window.expire(probe)   // one second: a peer that slow needs the whole window
        #expect(limiter.limit == 2_000)
        window.probeEnded(probe, answerTime: 1_000_000)   // its answer after all: no longer a probe
        #expect(limiter.limit == 2_000)
    }
}
