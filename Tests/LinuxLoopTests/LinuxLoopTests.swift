import Testing
import HeraldLinuxLoop

@Suite struct LinuxLoopTests {
    /// The README's Linux example, as CI runs it: HeraldClient against herald serve and the simulator.
    @Test func theWholeLoopRuns() async throws {
        try await LinuxLoop.run(say: { _ in })
    }
}
