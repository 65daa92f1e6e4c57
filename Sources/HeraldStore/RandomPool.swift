#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Random 64-bit values from the system's generator, read 4 KiB at a time. `SystemRandomNumberGenerator`
/// makes a system call for every value: an import makes an id per line and a fan-out an event id per
/// failed device, and that call was a tenth of an import's parsing. The values are as unpredictable (the
/// kernel's generator, through /dev/urandom), and each is handed out once.
public enum RandomPool {
    private static let poolSize = 512
    private static let pool = Mutex<(values: [UInt64], next: Int)>(([], 0))
    /// Opened once; -1 where there is no /dev/urandom (values then come one call each).
    private static let urandom: Int32 = open("/dev/urandom", O_RDONLY | O_CLOEXEC)

    public static func next() -> UInt64 {
        pool.withLock { p in
            if p.next == p.values.count {
                p.values = refill()
                p.next = 0
            }
            defer { p.next += 1 }
            return p.values[p.next]
        }
    }

    private static func refill() -> [UInt64] {
        var values = [UInt64](repeating: 0, count: poolSize)
        let complete = values.withUnsafeMutableBytes { buffer -> Bool in
            guard urandom >= 0, let base = buffer.baseAddress else { return false }
            var filled = 0
            while filled < buffer.count {
                let n = read(urandom, base + filled, buffer.count - filled)
                if n > 0 { filled += n } else if n < 0 && errno == EINTR { continue } else { return false }
            }
            return true
        }
        if !complete {
            var system = SystemRandomNumberGenerator()
            for i in values.indices { values[i] = system.next() }
        }
        return values
    }
}
