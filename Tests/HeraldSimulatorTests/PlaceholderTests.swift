import Testing
@testable import HeraldSimulator

@Test func moduleLoads() {}
