import Testing
@testable import HeraldServer

@Test func moduleLoads() {}
