import Synchronization
import HeraldIO

/// Sizes a client's in-flight limit to how fast its peer answers, between a floor and `maxInFlight`.
///
/// Why not always the most: whatever is on the wire when a server dies cannot be known delivered, so the
/// server sends it again after its restart. A peer that answers in a millisecond (the simulator, a relay next
/// door) is kept as busy by a few hundred requests as by thousands; APNs, tens of milliseconds away, needs
/// thousands for the same rate.
///
/// How: when the wire is empty (before the first request, at the end of a batch or a fan-out round), and the
/// last probe is `probeInterval` old, the next request is a probe: it goes out alone and every other sender
/// waits for its answer (`InFlightLimiter.tryAcquireAlone`). Its answer time is the peer's own, the network and
/// its processing of one request, with no queue in front; times `targetRate` it is the window (Little's law:
/// the requests that rate needs in flight). Answer times under load are not used: a peer whose CPU is the
/// bottleneck answers slower the more it is sent, so a window sized from them would only grow. A probe holds
/// the wire for one answer time every 10 s: under a millisecond against a local peer, ~0.5% against APNs.
final class InFlightWindow: Sendable {
    /// The rate the window leaves room for, per client: above what one server sends.
    static let targetRate = 100_000.0
    static let probeInterval: UInt64 = 10_000_000_000
    /// A probe unanswered this long gives the wire back and the window its ceiling: a peer this slow needs it
    /// (its request goes on, and its answer no longer counts).
    static let probeTimeout: Duration = .seconds(1)

    private let limiter: InFlightLimiter
    private let ceiling: Int
    private let observer: APNSClientObserver
    /// The running probe's number (nil when none runs), the last one's, and when that one started.
    private let probe = Mutex<(running: UInt64?, last: UInt64, started: UInt64?)>((nil, 0, nil))

    init(limiter: InFlightLimiter, ceiling: Int, observer: APNSClientObserver) {
        self.limiter = limiter
        self.ceiling = ceiling
        self.observer = observer
    }

    /// The window for a peer that answers a lone request in `nanoseconds`.
    static func limit(answerTime nanoseconds: UInt64, floor: Int, ceiling: Int) -> Int {
        let needed = targetRate * Double(nanoseconds) / 1e9
        return needed >= Double(ceiling) ? ceiling : max(floor, Int(needed.rounded(.up)))
    }

    /// Starts a probe when one is due and the wire is empty, taking the wire for it: its number, which the
    /// caller ends with `probeEnded`; nil to send as usual.
    func startProbe(now: UInt64 = MonotonicTime.now) -> UInt64? {
        probe.withLock { p in
            guard p.running == nil, p.started.map({ now >= $0 &+ Self.probeInterval }) ?? true,
                  limiter.tryAcquireAlone() else { return nil }
            p.last &+= 1
            p.running = p.last
            p.started = now
            return p.last
        }
    }

    /// Probe `number` was answered `nanoseconds` after it went out, or (nil) failed without an answer: the limit
    /// stays as it was. A probe that already timed out is not counted again.
    func probeEnded(_ number: UInt64, answerTime nanoseconds: UInt64?) {
        guard probe.withLock({ p in
            guard p.running == number else { return false }
            p.running = nil
            return true
        }) else { return }
        guard let nanoseconds else { return limiter.endProbe(limit: nil) }
        let window = Self.limit(answerTime: nanoseconds, floor: limiter.floor, ceiling: ceiling)
        limiter.endProbe(limit: window)
        observer.windowSized(window, probeSeconds: Double(nanoseconds) / 1e9)
    }

    /// Ends probe `number` as answered after `probeTimeout` if it has not ended by then.
    func expire(_ number: UInt64) async {
        try? await Task.sleep(for: Self.probeTimeout)
        probeEnded(number, answerTime: Self.probeTimeout.nanosecondsValue)
    }
}
