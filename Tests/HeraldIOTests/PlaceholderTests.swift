import Testing
@testable import HeraldIO

@Test func moduleLoads() {}
