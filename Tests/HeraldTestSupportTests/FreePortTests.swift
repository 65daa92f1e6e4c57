import Foundation
import Testing
import HeraldTestSupport

/// `FreePort` hands out ports nobody else can be given meanwhile: distinct within the process, and never
/// from the range the kernel assigns to port-0 listeners and outgoing connections.
struct FreePortTests {
    @Test func portsAreDistinctAndOutsideTheEphemeralRange() throws {
        let ports = (0..<500).map { _ in FreePort.next() }
        #expect(Set(ports).count == ports.count)
        #if os(Linux)
        let range = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
            .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        let ephemeral = try #require(range.count == 2 ? range[0]...range[1] : nil)
        #expect(ports.allSatisfy { !ephemeral.contains($0) && $0 > 1024 })
        #endif
    }
}
