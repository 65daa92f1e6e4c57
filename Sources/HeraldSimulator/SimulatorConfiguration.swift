import Foundation

/// Everything `herald sim` can be told at start. Transport settings (ports, addresses, TLS files) are
/// carried here too so one value describes a simulator, but only `Simulator.start` reads them.
public struct SimulatorConfiguration: Sendable {
    /// How much work each provider request does.
    public enum Mode: String, Sendable, Codable {
        /// Full APNs behaviour: validation, authentication, devices, store-and-forward, inspection.
        case validating
        /// Every request gets 200; only counters move. Stores nothing. For benchmarks.
        case acceptAll
    }

    /// When priority 5 and 1 notifications reach an online device.
    public enum LowPriorityDelivery: Sendable, Equatable, Codable {
        /// Delivered at once, like priority 10.
        case immediate
        /// Held and delivered together once `interval` seconds have passed since the first held one
        /// (or earlier, with the next priority-10 delivery to that device).
        case burst(interval: TimeInterval)
    }

    /// A sustained rate with a burst allowance (token bucket) for 429 `TooManyRequests` per device token.
    public struct RateLimit: Sendable, Equatable, Codable {
        public var requestsPerSecond: Double
        public var burst: Int
        public init(requestsPerSecond: Double, burst: Int) {
            self.requestsPerSecond = requestsPerSecond
            self.burst = burst
        }
    }

    public var mode: Mode = .validating
    /// Counting mode only: this share of device tokens (picked by a hash of the token, so the same ones
    /// every time) answer 410 `Unregistered` instead of 200, for benchmarks of token retirement. Above 0,
    /// requests are decoded (the undecoded fast path cannot tell tokens apart).
    public var acceptAllUnregisteredRate: Double = 0
    /// Where devices, tokens, keys and the CA are kept between runs; nil keeps everything in memory.
    public var dataDirectory: URL?
    /// The device-token rule for paths and newly issued tokens.
    public var tokens: DeviceTokenRule = .init()
    /// SETTINGS_MAX_CONCURRENT_STREAMS once a connection is authenticated (token auth starts at 1).
    public var maxConcurrentStreams: UInt32 = 1000
    /// Per-device 429 `TooManyRequests`; nil disables it.
    public var perDeviceRateLimit: RateLimit? = nil
    public var lowPriorityDelivery: LowPriorityDelivery = .immediate
    /// Answer with `apns-unique-id` on sandbox, as APNs does for the Push Notifications Console.
    public var sandboxUniqueID: Bool = true
    /// How long APNs keeps an offline device's notification when `apns-expiration` is absent (30 days).
    public var defaultStorageTime: TimeInterval = 30 * 24 * 3600
    /// Received notifications kept per device for inspection; older ones are forgotten first.
    public var inboxLimit: Int = 1000
    /// Token auth: `iat` older than this is `ExpiredProviderToken`.
    public var providerTokenLifetime: TimeInterval = 3600
    /// Token auth: a connection may switch to a new token at most once per this interval.
    public var providerTokenMinimumUpdateInterval: TimeInterval = 20 * 60
    /// Where "opened" reports are forwarded (POST, JSON body; see docs/simulator.md); nil keeps them local.
    public var openedCallbackURL: URL?
    /// Sent as `Authorization: Bearer <key>` with each forwarded report: herald serve's `/v1/opens` takes the
    /// app's client key.
    public var openedCallbackKey: String?
    public var faults: FaultConfiguration = .init()

    // Transport, read by `Simulator.start` only.
    public var host: String = "127.0.0.1"
    /// HTTP/2 provider API ports; 0 picks a free port, nil disables the listener.
    public var sandboxPort: Int? = 0
    public var productionPort: Int? = nil
    /// HTTP/1.1 inspection API and device channel.
    public var inspectionPort: Int? = 0
    /// Legacy binary gateway (2195) and feedback service (2196); nil disables them.
    public var legacyGatewayPort: Int? = nil
    public var legacyFeedbackPort: Int? = nil
    /// The environment the legacy gateway and feedback service play (Apple ran one pair per environment).
    public var legacyEnvironment: PushEnvironment = .sandbox
    /// Serve the provider API over TLS (certificate auth needs it). h2c prior knowledge when false.
    public var useTLS: Bool = true

    public init() {}
}

/// What a device token looks like: hexadecimal bytes in the path. Apple says not to assume a size,
/// libraries assume 32 bytes; both are expressible here.
public struct DeviceTokenRule: Sendable, Equatable, Codable {
    /// Bytes in tokens the simulator issues.
    public var issuedByteCount: Int = 32
    /// Byte counts accepted in request paths.
    public var acceptedByteCounts: ClosedRange<Int> = 32...32
    /// Accept `A`–`F` in paths (tokens are issued lowercase and matched case-insensitively).
    public var acceptsUppercase: Bool = true

    public init(issuedByteCount: Int = 32, acceptedByteCounts: ClosedRange<Int> = 32...32, acceptsUppercase: Bool = true) {
        self.issuedByteCount = issuedByteCount
        self.acceptedByteCounts = acceptedByteCounts
        self.acceptsUppercase = acceptsUppercase
    }

    /// The lowercase form of `text` if it is a well-formed token under this rule.
    func normalize(_ text: String) -> String? { normalize(text[...]) }

    func normalize(_ text: Substring) -> String? {
        var text = text
        let count = text.utf8.count
        guard count % 2 == 0, acceptedByteCounts.contains(count / 2) else { return nil }
        // Over contiguous bytes: every validated request checks its token here.
        switch text.withUTF8(scan) {
        case .invalid: return nil
        case .lowercase: return String(text)
        case .mixedCase: return text.lowercased()
        }
    }

    private enum Scan { case invalid, lowercase, mixedCase }

    private func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Scan {
        var sawUpper = false
        for c in bytes {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
            case UInt8(ascii: "A")...UInt8(ascii: "F") where acceptsUppercase: sawUpper = true
            default: return .invalid
            }
        }
        return sawUpper ? .mixedCase : .lowercase
    }
}
