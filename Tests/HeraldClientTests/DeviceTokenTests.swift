import Foundation
import Testing
@testable import HeraldClient

@Suite struct DeviceTokenTests {
    @Test func thirtyTwoByteTokenBecomesSixtyFourLowercaseHexDigits() {
        let token = DeviceToken(Data([0x43, 0xe7, 0x98, 0xc3, 0x1a, 0x28, 0x2d, 0x12, 0x9a, 0x34, 0xd8, 0x44, 0x72, 0xbb, 0xdd, 0x76,
                                      0x32, 0x56, 0x2f, 0xf0, 0x73, 0x2b, 0x58, 0xa8, 0x5a, 0x27, 0xc5, 0xd9, 0xfd, 0xf5, 0x9b, 0x69]))
        // The token printed in seed 000's newspush.php.
        #expect(token.hex == "43e798c31a282d129a34d84472bbdd7632562ff0732b58a85a27c5d9fdf59b69")
    }

    @Test(arguments: [1, 8, 31, 33, 64, 100])
    func tokensOfAnyLengthKeepEveryByte(length: Int) throws {
        let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 5) })
        let hex = DeviceToken(bytes).hex
        #expect(hex.count == length * 2)
        #expect(hex == hex.lowercased())
        #expect(try DeviceToken(hex: hex).bytes == bytes)
    }

    @Test func leadingZeroBytesKeepTheirZeros() {
        #expect(DeviceToken(Data([0x00, 0x0a, 0xff])).hex == "000aff")
    }

    @Test func hexParsingToleratesUppercaseSpacesAndBrackets() throws {
        let token = try DeviceToken(hex: "<43E798C3 1a282d12>")
        #expect(token.hex == "43e798c31a282d12")
    }

    @Test(arguments: ["", "abc", "zz", "12 3"])
    func malformedHexIsRejected(text: String) {
        #expect(throws: HeraldClientError.invalidDeviceToken(text)) { try DeviceToken(hex: text) }
    }
}
