import Testing
@testable import APNSClient

@Test func moduleLoads() {}
