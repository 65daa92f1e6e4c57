import Foundation
import Testing
import HeraldTestSupport

/// The `herald` executable carries its own jemalloc settings (Sources/CJemallocSettings): without them an
/// import of 10,000,000 installations peaked at 149 MiB against 135 with them, and one of 3,000,000 at 158
/// MiB against 108 (docs/performance.md, "jemalloc's arenas"). Nothing else would notice if a build stopped linking them in, so this asks jemalloc
/// which options it runs with (its statistics, printed at exit when `MALLOC_CONF` asks for them).
struct AllocatorSettingsTests {
    #if os(Linux)  // jemalloc is linked on Linux only (Package.swift)
    @Test func theExecutableRunsWithItsJemallocSettings() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["MALLOC_CONF"] = "stats_print:true"
        let result = try await ChildProcess.run(CrashRecoveryTests.binary, ["--version"], environment: environment)
        #expect(result.status == 0)
        let stats = String(decoding: result.error, as: UTF8.self)
        #expect(stats.contains("opt.percpu_arena: \"percpu\""), "jemalloc's statistics: \(stats.prefix(600))")
        #expect(stats.contains("opt.dirty_decay_ms: 1000") && stats.contains("opt.muzzy_decay_ms: 0"))
    }
    #endif
}
