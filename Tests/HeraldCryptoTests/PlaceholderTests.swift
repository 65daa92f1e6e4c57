import Testing
@testable import HeraldCrypto

@Test func moduleLoads() {}
