import Foundation

/// Misbehaviour on demand, for testing how providers cope. Rates are probabilities in 0...1 drawn from
/// a generator seeded with `seed`, so a run with the same seed and the same request order repeats.
/// Set at start or at run time (`PUT /faults` on the inspection API).
public struct FaultConfiguration: Sendable, Equatable, Codable {
    public var seed: UInt64 = 0x5EED
    /// Fraction of requests answered 500 `InternalServerError`.
    public var internalServerErrorRate: Double = 0
    /// Fraction of requests answered 503 `ServiceUnavailable`.
    public var serviceUnavailableRate: Double = 0
    /// Fraction of requests answered 429 `TooManyRequests`.
    public var tooManyRequestsRate: Double = 0
    /// Fraction of requests whose connection is torn down without a response (TCP reset, no GOAWAY).
    public var connectionResetRate: Double = 0
    /// Fraction of requests that never get an answer (the stream stays open).
    public var neverAnswerRate: Double = 0
    /// Fraction of requests answered after `delayMilliseconds`.
    public var delayRate: Double = 0
    public var delayMilliseconds: Int = 0
    /// Send GOAWAY (after answering) once a connection has carried this many requests; nil = never.
    public var goAwayAfterStreams: Int? = nil
    /// The `reason` in the GOAWAY debug data (`{"reason":"…"}`).
    public var goAwayReason: String = "Shutdown"
    /// When set, every live and new connection advertises this SETTINGS_MAX_CONCURRENT_STREAMS instead
    /// of the configured value (APNs was seen lowering it to 1 after a rejection).
    public var maxConcurrentStreamsOverride: UInt32? = nil
    /// Extra time the TLS server waits before finishing each handshake (honoured by the transport).
    public var tlsHandshakeDelayMilliseconds: Int = 0

    public init() {}

    /// Missing keys keep their defaults, so `PUT /faults {"internalServerErrorRate":0.1}` is enough.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = FaultConfiguration()
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? d.seed
        internalServerErrorRate = try c.decodeIfPresent(Double.self, forKey: .internalServerErrorRate) ?? 0
        serviceUnavailableRate = try c.decodeIfPresent(Double.self, forKey: .serviceUnavailableRate) ?? 0
        tooManyRequestsRate = try c.decodeIfPresent(Double.self, forKey: .tooManyRequestsRate) ?? 0
        connectionResetRate = try c.decodeIfPresent(Double.self, forKey: .connectionResetRate) ?? 0
        neverAnswerRate = try c.decodeIfPresent(Double.self, forKey: .neverAnswerRate) ?? 0
        delayRate = try c.decodeIfPresent(Double.self, forKey: .delayRate) ?? 0
        delayMilliseconds = try c.decodeIfPresent(Int.self, forKey: .delayMilliseconds) ?? 0
        goAwayAfterStreams = try c.decodeIfPresent(Int.self, forKey: .goAwayAfterStreams)
        goAwayReason = try c.decodeIfPresent(String.self, forKey: .goAwayReason) ?? d.goAwayReason
        maxConcurrentStreamsOverride = try c.decodeIfPresent(UInt32.self, forKey: .maxConcurrentStreamsOverride)
        tlsHandshakeDelayMilliseconds = try c.decodeIfPresent(Int.self, forKey: .tlsHandshakeDelayMilliseconds) ?? 0
    }

    /// True when no per-request fault can fire, so the hot path can skip drawing random numbers.
    var isQuiet: Bool {
        internalServerErrorRate == 0 && serviceUnavailableRate == 0 && tooManyRequestsRate == 0
            && connectionResetRate == 0 && neverAnswerRate == 0 && (delayRate == 0 || delayMilliseconds == 0)
            && goAwayAfterStreams == nil
    }

    /// Rejects rates outside 0...1 and negative delays, naming the field.
    public func validated() throws -> FaultConfiguration {
        let rates: [(String, Double)] = [
            ("internalServerErrorRate", internalServerErrorRate), ("serviceUnavailableRate", serviceUnavailableRate),
            ("tooManyRequestsRate", tooManyRequestsRate), ("connectionResetRate", connectionResetRate),
            ("neverAnswerRate", neverAnswerRate), ("delayRate", delayRate),
        ]
        for (name, value) in rates where !(0...1).contains(value) {
            throw SimulatorError.invalidConfiguration(field: "faults.\(name)", message: "must be between 0 and 1, got \(value)")
        }
        if delayMilliseconds < 0 || tlsHandshakeDelayMilliseconds < 0 {
            throw SimulatorError.invalidConfiguration(field: "faults.delayMilliseconds", message: "delays cannot be negative")
        }
        if let n = goAwayAfterStreams, n < 1 {
            throw SimulatorError.invalidConfiguration(field: "faults.goAwayAfterStreams", message: "must be at least 1, got \(n)")
        }
        if maxConcurrentStreamsOverride == 0 {
            throw SimulatorError.invalidConfiguration(field: "faults.maxConcurrentStreamsOverride", message: "0 would stall every client; use 1 or more")
        }
        return self
    }
}

/// What the fault injector decided for one request.
enum FaultDecision: Equatable {
    case none
    case reject(Rejection)
    case resetConnection
    case neverAnswer
    case delay(milliseconds: Int)
}

/// Draws fault decisions from a seeded generator. Not thread-safe: the owner locks.
struct FaultInjector {
    private(set) var configuration: FaultConfiguration
    private var random: SplitMix64

    init(_ configuration: FaultConfiguration) {
        self.configuration = configuration
        random = SplitMix64(seed: configuration.seed)
    }

    mutating func reconfigure(_ configuration: FaultConfiguration) {
        self.configuration = configuration
        random = SplitMix64(seed: configuration.seed)
    }

    /// One decision per request. Each rate gets its own draw so changing one rate does not shift the others.
    mutating func decide() -> FaultDecision {
        let c = configuration
        let draws = (0..<6).map { _ in random.nextUnit() }
        if draws[0] < c.connectionResetRate { return .resetConnection }
        if draws[1] < c.neverAnswerRate { return .neverAnswer }
        if draws[2] < c.internalServerErrorRate { return .reject(.internalServerError) }
        if draws[3] < c.serviceUnavailableRate { return .reject(.serviceUnavailable) }
        if draws[4] < c.tooManyRequestsRate { return .reject(.tooManyRequests) }
        if c.delayMilliseconds > 0, draws[5] < c.delayRate { return .delay(milliseconds: c.delayMilliseconds) }
        return .none
    }
}

/// A small, fast, seedable generator (Steele, Lea, Flood 2014): deterministic across platforms.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A double in [0, 1).
    mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1.0p-53 }
}
