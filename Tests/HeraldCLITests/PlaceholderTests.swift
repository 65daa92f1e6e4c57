import Testing
@testable import HeraldCLI

@Test func moduleLoads() {}
