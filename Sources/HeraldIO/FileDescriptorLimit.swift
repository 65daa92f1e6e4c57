import Foundation

/// The process's limit on open file descriptors. A server process raises the soft limit to the hard one at
/// start (1024 is a common soft default, too low for a server) and keeps its connection limits below it, so
/// that a flood of connections is refused by the limit and never starves SQLite or the APNs client of
/// descriptors. Raising is the process's decision (`herald serve`), not a library's: Foundation's `Process`
/// crashed in a test process that held more than 1024 descriptors once a library had raised the limit.
public enum FileDescriptorLimit {
    /// The soft limit in force.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(clamping: limit.rlim_cur)   // RLIM_INFINITY is the largest value: clamps to Int.max
    }

    /// Raises the soft limit to the hard limit when it is lower; returns the soft limit in force.
    @discardableResult
    public static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)   // RLIM_INFINITY is the largest value: clamps to Int.max
    }
}
