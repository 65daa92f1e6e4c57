import Foundation
import Synchronization

/// A fixed set of event loops handed out round-robin.
public final class EventLoopGroup: Sendable {
    public let loops: [EventLoop]
    private let cursor = Atomic<Int>(0)

    public init(loopCount: Int, name: String = "herald-loop") {
        precondition(loopCount > 0)
        loops = (0..<loopCount).map { EventLoop(name: "\(name)-\($0)") }
    }

    public func next() -> EventLoop {
        loops[cursor.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    public func shutdown() { loops.forEach { $0.shutdown() } }

    /// One loop per core, created on first use, shared by clients and servers that are not given a group.
    public static let shared = EventLoopGroup(loopCount: max(1, min(4, ProcessInfo.processInfo.activeProcessorCount)), name: "herald-io")
}
