import Testing
@testable import HeraldClient

@Test func moduleLoads() {}
