import Synchronization
import HeraldIO

/// Sizes a client's in-flight limit to how fast its peer answers, between a floor and `maxInFlight`.
///
/// Why not always the most: whatever is on the wire when a server dies cannot be known delivered, so the
/// server sends it again after its restart. A peer that answers in a millisecond (the simulator, a relay next
/// door) is kept as busy by a few hundred requests as by thousands; APNs, tens of milliseconds away, needs
/// thousands for the same rate.
///
/// How: every `probeInterval` while sending (and first of all), one request goes out alone on an empty wire
/// (`InFlightLimiter.acquireAlone`). Its answer time is the peer's own, the network and its processing of one
/// request, with no queue in front; times `targetRate` it is the window (Little's law: the requests that rate
/// needs in flight). Answer times under load are not used: a peer whose CPU is the bottleneck answers slower
/// the more it is sent, so a window sized from them would only grow. A probe costs an empty wire for about
/// two answer times: under a millisecond against a local peer, ~1% of the time against APNs.
final class InFlightWindow: Sendable {
    /// The rate the window leaves room for, per client: above what one server sends.
    static let targetRate = 100_000.0
    static let probeInterval: UInt64 = 10_000_000_000

    private let limiter: InFlightLimiter
    private let ceiling: Int
    private let observer: APNSClientObserver
    /// Whether a probe is under way, and when the last one started (nil before the first).
    private let probe = Mutex<(running: Bool, started: UInt64?)>((false, nil))

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

    /// Whether the next request should be a probe; true for one caller at a time, who must end it.
    func probeIsDue(now: UInt64 = MonotonicTime.now) -> Bool {
        probe.withLock { p in
            guard !p.running, p.started.map({ now - $0 >= Self.probeInterval }) ?? true else { return false }
            p = (true, now)
            return true
        }
    }

    /// The probe was answered `nanoseconds` after it went out, or (nil) failed without an answer: the limit
    /// stays as it was.
    func probeEnded(answerTime nanoseconds: UInt64?) {
        probe.withLock { $0.running = false }
        guard let nanoseconds else { return limiter.endProbe(limit: nil) }
        let window = Self.limit(answerTime: nanoseconds, floor: limiter.floor, ceiling: ceiling)
        limiter.endProbe(limit: window)
        observer.windowSized(window, probeSeconds: Double(nanoseconds) / 1e9)
    }
}
