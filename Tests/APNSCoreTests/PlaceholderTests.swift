import Testing
@testable import APNSCore

@Test func moduleLoads() {}
