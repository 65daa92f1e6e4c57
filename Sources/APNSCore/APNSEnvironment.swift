/// Where the HTTP/2 provider API lives: Apple's production or sandbox service, or any host
/// and port (the simulator, a proxy).
public struct APNSEnvironment: Sendable, Hashable, CustomStringConvertible {
    /// The standard HTTPS port.
    public static let defaultPort = 443
    /// The alternative port APNs also listens on, for firewalls that block 443 outbound.
    public static let alternativePort = 2197

    /// Host name or address.
    public var host: String
    /// TCP port.
    public var port: Int

    /// Any host and port.
    public init(host: String, port: Int = APNSEnvironment.defaultPort) {
        self.host = host
        self.port = port
    }

    /// `api.push.apple.com:443`: tokens from App Store, TestFlight and Ad Hoc builds.
    public static let production = APNSEnvironment(host: "api.push.apple.com")
    /// `api.sandbox.push.apple.com:443`: tokens from development builds. (The older name
    /// `api.development.push.apple.com` reaches the same service.)
    public static let sandbox = APNSEnvironment(host: "api.sandbox.push.apple.com")

    /// A custom endpoint, such as a local simulator.
    public static func custom(host: String, port: Int) -> APNSEnvironment {
        APNSEnvironment(host: host, port: port)
    }

    /// The same host on port 2197.
    public var usingAlternativePort: APNSEnvironment {
        APNSEnvironment(host: host, port: Self.alternativePort)
    }

    /// Whether this is one of Apple's production hosts.
    public var isAppleProduction: Bool { host == Self.production.host }
    /// Whether this is one of Apple's sandbox hosts (including the older development name).
    public var isAppleSandbox: Bool {
        host == Self.sandbox.host || host == "api.development.push.apple.com"
    }

    /// `host:port`, the value of the `:authority` pseudo-header.
    public var authority: String {
        port == Self.defaultPort ? host : "\(host):\(port)"
    }

    public var description: String { "\(host):\(port)" }
}
