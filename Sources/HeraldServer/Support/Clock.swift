import Foundation
import Synchronization

/// Where the service reads the time. Everything that expires or is scheduled asks this, so tests move
/// time forward instead of sleeping.
public protocol HeraldClock: Sendable {
    func now() -> Date
}

/// The system's wall clock.
public struct SystemClock: HeraldClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that only moves when told to: for tests and simulations.
public final class ManualClock: HeraldClock {
    private let current: Mutex<Date>

    public init(_ start: Date) { current = Mutex(start) }

    public func now() -> Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    public func set(_ date: Date) { current.withLock { $0 = date } }
}
