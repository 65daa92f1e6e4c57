/// Severity of a service log line.
public enum LogLevel: String, Sendable, Comparable {
    case debug, info, warning, error

    private var rank: Int { [.debug: 0, .info: 1, .warning: 2, .error: 3][self]! }
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rank < b.rank }
}

/// Where the service writes what operators should know (a credential pause, a failed round). Secrets are
/// never passed here. The CLI prints these; tests may collect them.
public typealias LogHandler = @Sendable (LogLevel, String) -> Void
