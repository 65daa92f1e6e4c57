import Foundation
import Testing
@testable import HeraldClient

@Suite struct DeviceInfoTests {
    @Test func theRunningSystemDescribesItself() throws {
        let device = DeviceInfo.current
        let os = try #require(device.osVersion)
        #expect(os.split(separator: ".").count == 3)
        #expect(os.split(separator: ".").allSatisfy { Int($0) != nil })
        #expect(device.deviceModel?.isEmpty == false)
        #expect(device.timeZone == TimeZone.current.identifier)
        #expect(device.locale == Locale.current.identifier)
    }
}
