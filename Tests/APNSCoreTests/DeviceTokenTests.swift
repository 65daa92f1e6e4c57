import Foundation
import Testing

@testable import APNSCore

struct DeviceTokenTests {
    static let hex64 = "43e798c31a282d129a34d84472bbdd7632562ff0732b58a85a27c5d9fdf59b69"

    @Test func normalisesToLowercaseSoSpellingsAreEqual() throws {
        let upper = try DeviceToken(hex: Self.hex64.uppercased())
        let lower = try DeviceToken(hex: Self.hex64)
        #expect(upper.hex == Self.hex64)
        #expect(upper == lower)
        #expect(Set([upper, lower]).count == 1)
    }

    @Test func acceptsLengthsOtherThan32Bytes() throws {
        #expect(try DeviceToken(hex: String(repeating: "ab", count: 8)).byteCount == 8)
        #expect(try DeviceToken(hex: String(repeating: "0f", count: 100)).byteCount == 100)
    }

    @Test func convertsBetweenBytesAndHex() throws {
        let bytes: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xAB, 0xCD, 0xEF, 0xFF]
        let token = try DeviceToken(bytes: bytes)
        #expect(token.hex == "00017f80abcdefff")
        #expect(token.bytes == bytes)
        #expect(try DeviceToken(bytes: Data(bytes)) == token)
        #expect(try DeviceToken(hex: Self.hex64).bytes.count == 32)
    }

    @Test func pastedFormsWithSpacesAndBracketsAreAccepted() throws {
        let pasted = "<43e798c3 1a282d12 9a34d844 72bbdd76 32562ff0 732b58a8 5a27c5d9 fdf59b69>\n"
        #expect(try DeviceToken(pasted: pasted).hex == Self.hex64)
    }

    @Test func emptyIsRejected() {
        #expect(throws: DeviceTokenError.empty) { try DeviceToken(hex: "") }
        #expect(throws: DeviceTokenError.empty) { try DeviceToken(bytes: []) }
        #expect(DeviceTokenError.empty.description.contains("empty"))
    }

    @Test func oddLengthIsRejectedWithTheCount() {
        #expect(throws: DeviceTokenError.oddLength(63)) { try DeviceToken(hex: String(Self.hex64.dropLast())) }
        #expect(DeviceTokenError.oddLength(63).description.contains("odd number of hex digits (63)"))
    }

    @Test func nonHexCharacterIsNamedWithItsPosition() {
        let bad = "43e798c3 1a282d12"
        #expect(throws: DeviceTokenError.invalidCharacter(" ", position: 9)) { try DeviceToken(hex: bad) }
        let message = DeviceTokenError.invalidCharacter("g", position: 5).description
        #expect(message.contains("\"g\" at position 5"))
        #expect(throws: DeviceTokenError.invalidCharacter("é", position: 3)) { try DeviceToken(hex: "abé0") }
        // The first bad character is named even after capitals and with others behind it.
        #expect(throws: DeviceTokenError.invalidCharacter("x", position: 5)) { try DeviceToken(hex: "ABCDx0zz" + String(repeating: "0", count: 24)) }
        for byte in UInt8(0)...UInt8(127) where !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            && !(UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) && !(UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte) {
            let text = "00" + String(UnicodeScalar(byte)) + String(repeating: "0", count: 29)
            #expect(throws: DeviceTokenError.invalidCharacter(Character(UnicodeScalar(byte)), position: 3)) { try DeviceToken(hex: text) }
        }
    }

    @Test func tooShortAndTooLongAreRejectedWithLimits() {
        #expect(throws: DeviceTokenError.tooShort(byteCount: 2)) { try DeviceToken(hex: "abcd") }
        #expect(throws: DeviceTokenError.tooLong(byteCount: 101)) {
            try DeviceToken(bytes: [UInt8](repeating: 1, count: 101))
        }
        #expect(DeviceTokenError.tooShort(byteCount: 2).description.contains("minimum of 8 bytes"))
        #expect(DeviceTokenError.tooLong(byteCount: 101).description.contains("maximum of 100 bytes"))
    }

    @Test func codableAsAHexStringAndValidatedOnDecode() throws {
        let token = try DeviceToken(hex: Self.hex64)
        let data = try JSONEncoder().encode([token])
        #expect(String(decoding: data, as: UTF8.self) == "[\"\(Self.hex64)\"]")
        #expect(try JSONDecoder().decode([DeviceToken].self, from: data) == [token])
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode([DeviceToken].self, from: Data(#"["xyz"]"#.utf8))
        }
    }

    @Test func abbreviatedShowsOnlyTheStart() throws {
        #expect(try DeviceToken(hex: Self.hex64).abbreviated == "43e798c3…")
    }
}
