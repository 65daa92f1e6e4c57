import Testing
@testable import HeraldStore

@Test func moduleLoads() {}
