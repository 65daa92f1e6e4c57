import Foundation
import Testing

@testable import APNSCore

struct LegacyEncodingTests {
    static let token = [UInt8](repeating: 0xAB, count: 32)
    static let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)

    @Test func simpleCommandLayout() throws {
        let bytes = try LegacyNotification.simple(deviceToken: Self.token, payload: Self.payload).encoded()
        #expect(Array(bytes[0..<3]) == [0, 0, 32])
        #expect(Array(bytes[3..<35]) == Self.token)
        #expect(Array(bytes[35..<37]) == [0, UInt8(Self.payload.count)])
        #expect(Array(bytes[37...]) == Self.payload)
    }

    @Test func enhancedCommandLayout() throws {
        let bytes = try LegacyNotification.enhanced(
            identifier: 0x0102_0304, expiry: 0xA0B0_C0D0, deviceToken: Self.token, payload: Self.payload
        ).encoded()
        #expect(Array(bytes[0..<11]) == [1, 1, 2, 3, 4, 0xA0, 0xB0, 0xC0, 0xD0, 0, 32])
        #expect(bytes.count == 11 + 32 + 2 + Self.payload.count)
    }

    @Test func frameLayoutWritesOnlyGivenItems() throws {
        let minimal = try LegacyNotification.frame(deviceToken: Self.token, payload: Self.payload).encoded()
        let itemsLength = 3 + 32 + 3 + Self.payload.count
        #expect(Array(minimal[0..<5]) == [2, 0, 0, 0, UInt8(itemsLength)])
        #expect(Array(minimal[5..<8]) == [1, 0, 32])
        #expect(minimal.count == 5 + itemsLength)

        let full = try LegacyNotification.frame(
            deviceToken: Self.token, payload: Self.payload, identifier: 7, expiry: 0, priority: 5
        ).encoded()
        #expect(full.count == minimal.count + 7 + 7 + 4)
        #expect(Array(full.suffix(18)) == [3, 0, 4, 0, 0, 0, 7, 4, 0, 4, 0, 0, 0, 0, 5, 0, 1, 5])
    }

    @Test func encodingRefusesWhatTheGatewayWouldRefuse() {
        let big = [UInt8](repeating: 0x20, count: 2049)
        #expect(throws: LegacyCodecError.self) { try LegacyNotification.simple(deviceToken: Self.token, payload: big).encoded() }
        #expect(throws: LegacyCodecError.self) { try LegacyNotification.simple(deviceToken: [], payload: Self.payload).encoded() }
        #expect(throws: LegacyCodecError.self) {
            try LegacyNotification.frame(deviceToken: [UInt8](repeating: 1, count: 101), payload: Self.payload).encoded()
        }
        #expect(throws: LegacyCodecError.self) {
            try LegacyNotification.frame(deviceToken: Self.token, payload: Self.payload, priority: 7).encoded()
        }
        do {
            _ = try LegacyNotification.simple(deviceToken: Self.token, payload: big).encoded()
        } catch {
            #expect(error.description.contains("2049 bytes, over the 2048-byte limit"))
        }
    }

    @Test func exactly2048BytesIsAcceptedInEveryFormat() throws {
        let payload = [UInt8](repeating: 0x20, count: 2048)
        for notification in [
            LegacyNotification.simple(deviceToken: Self.token, payload: payload),
            .enhanced(identifier: 1, expiry: 0, deviceToken: Self.token, payload: payload),
            .frame(deviceToken: Self.token, payload: payload, identifier: 1, expiry: 0, priority: 10),
        ] {
            var decoder = LegacyNotificationDecoder()
            decoder.append(try notification.encoded())
            #expect(try decoder.next() == notification)
        }
    }
}

struct LegacyDecodingTests {
    static let all: [LegacyNotification] = [
        .simple(deviceToken: LegacyEncodingTests.token, payload: LegacyEncodingTests.payload),
        .enhanced(identifier: 42, expiry: 1_700_000_000, deviceToken: [1, 2, 3, 4, 5, 6, 7, 8], payload: Array("{}".utf8)),
        .frame(deviceToken: LegacyEncodingTests.token, payload: LegacyEncodingTests.payload),
        .frame(
            deviceToken: LegacyEncodingTests.token, payload: LegacyEncodingTests.payload, identifier: 9, expiry: 0,
            priority: 5),
    ]

    @Test func roundTripsEveryFormatInOneStream() throws {
        var stream: [UInt8] = []
        for notification in Self.all { stream += try notification.encoded() }
        var decoder = LegacyNotificationDecoder()
        decoder.append(stream)
        var decoded: [LegacyNotification] = []
        while let next = try decoder.next() { decoded.append(next) }
        #expect(decoded == Self.all)
        #expect(decoder.bufferedByteCount == 0)
        #expect(decoded[0].effectivePriority == 10)
        #expect(decoded[3].effectivePriority == 5)
    }

    @Test(arguments: [1, 2, 3, 7, 64])
    func decodesAcrossArbitraryChunkBoundaries(chunkSize: Int) throws {
        var stream: [UInt8] = []
        for notification in Self.all { stream += try notification.encoded() }
        var decoder = LegacyNotificationDecoder()
        var decoded: [LegacyNotification] = []
        var offset = 0
        while offset < stream.count {
            let end = min(offset + chunkSize, stream.count)
            decoder.append(stream[offset..<end])
            offset = end
            while let next = try decoder.next() { decoded.append(next) }
        }
        #expect(decoded == Self.all)
    }

    @Test func incompleteInputWaitsForMore() throws {
        let bytes = try Self.all[3].encoded()
        var decoder = LegacyNotificationDecoder()
        decoder.append(bytes.dropLast())
        #expect(try decoder.next() == nil)
        #expect(decoder.bufferedByteCount == bytes.count - 1)
        decoder.append([bytes.last!])
        #expect(try decoder.next() == Self.all[3])
    }

    func decodeError(_ bytes: [UInt8]) -> LegacyDecodingError? {
        var decoder = LegacyNotificationDecoder()
        decoder.append(bytes)
        do {
            while try decoder.next() != nil {}
            return nil
        } catch {
            return error
        }
    }

    @Test func unknownCommandIsAProcessingError() {
        let error = decodeError([9, 0, 0])
        #expect(error?.status == .processingError)
        #expect(error?.identifier == 0)
        #expect(error?.problem.contains("unknown command 9") == true)
    }

    @Test func oversizedPayloadIsRefusedFromItsLengthFieldAlone() {
        // Enhanced header with identifier 77, a 32-byte token, and a payload length of 2049;
        // no payload bytes follow, yet the error is reported at once.
        var bytes: [UInt8] = [1, 0, 0, 0, 77, 0, 0, 0, 0, 0, 32]
        bytes += LegacyEncodingTests.token
        bytes += [0x08, 0x01]
        let error = decodeError(bytes)
        #expect(error?.status == .invalidPayloadSize)
        #expect(error?.identifier == 77)
        #expect(error?.errorResponse.encoded() == [8, 7, 0, 0, 0, 77])
        #expect(error?.description.contains("2049 bytes, over the 2048-byte limit") == true)
    }

    @Test func tokenSizeErrors() {
        #expect(decodeError([0, 0, 0])?.status == .missingDeviceToken)
        #expect(decodeError([0, 0, 101])?.status == .invalidTokenSize)
        let emptyPayload: [UInt8] = [0, 0, 8] + [UInt8](repeating: 1, count: 8) + [0, 0]
        #expect(decodeError(emptyPayload)?.status == .missingPayload)
    }

    @Test func frameMissingItemsReportTheirStatusAndIdentifier() {
        // Frame with only an identifier item (id 5).
        let noToken: [UInt8] = [2, 0, 0, 0, 7, 3, 0, 4, 0, 0, 0, 5]
        let error = decodeError(noToken)
        #expect(error?.status == .missingDeviceToken)
        #expect(error?.identifier == 5)
        // Token item but no payload item.
        let noPayload: [UInt8] = [2, 0, 0, 0, 11, 1, 0, 8] + [UInt8](repeating: 1, count: 8)
        #expect(decodeError(noPayload)?.status == .missingPayload)
    }

    @Test func malformedFramesAreProcessingErrors() {
        // An item claiming more bytes than the frame holds.
        let overrun: [UInt8] = [2, 0, 0, 0, 4, 1, 0, 32, 0]
        #expect(decodeError(overrun)?.problem.contains("more than the frame has left") == true)
        // A frame declaring more than the largest valid frame is refused before it is buffered.
        let huge: [UInt8] = [2, 0, 0, 0x10, 0]
        #expect(decodeError(huge)?.problem.contains("exceeds the largest valid frame") == true)
        // A priority other than 5 or 10.
        var badPriority = [UInt8](try! LegacyNotification.frame(
            deviceToken: LegacyEncodingTests.token, payload: LegacyEncodingTests.payload, identifier: 3
        ).encoded())
        badPriority[4] += 4
        badPriority += [5, 0, 1, 7]
        let error = decodeError(badPriority)
        #expect(error?.status == .processingError)
        #expect(error?.identifier == 3)
        #expect(error?.problem.contains("priority item") == true)
        // The same item twice.
        let twice: [UInt8] = [2, 0, 0, 0, 14, 3, 0, 4, 0, 0, 0, 1, 3, 0, 4, 0, 0, 0, 2]
        #expect(decodeError(twice)?.problem.contains("item 3 appears twice") == true)
    }

    @Test func unknownFrameItemsAreSkipped() throws {
        var bytes = try LegacyNotification.frame(deviceToken: LegacyEncodingTests.token, payload: LegacyEncodingTests.payload)
            .encoded()
        bytes[4] += 5
        bytes += [9, 0, 2, 0xEE, 0xEE]
        var decoder = LegacyNotificationDecoder()
        decoder.append(bytes)
        #expect(try decoder.next()?.payload == LegacyEncodingTests.payload)
    }

    @Test func afterAnErrorTheDecoderStaysFailed() throws {
        var decoder = LegacyNotificationDecoder()
        decoder.append([7])
        #expect(throws: LegacyDecodingError.self) { try decoder.next() }
        decoder.append(try Self.all[0].encoded())
        #expect(throws: LegacyDecodingError.self) { try decoder.next() }
    }
}

struct LegacyErrorResponseTests {
    @Test func roundTrips() throws {
        let response = LegacyErrorResponse(status: .shutdown, identifier: 0xDEAD_BEEF)
        #expect(response.encoded() == [8, 10, 0xDE, 0xAD, 0xBE, 0xEF])
        #expect(try LegacyErrorResponse(bytes: response.encoded()) == response)
    }

    @Test func rejectsWrongSizeOrCommand() {
        #expect(throws: LegacyCodecError.self) { try LegacyErrorResponse(bytes: [8, 1, 0, 0, 0]) }
        #expect(throws: LegacyCodecError("an error response starts with command 8, got 2")) {
            try LegacyErrorResponse(bytes: [2, 1, 0, 0, 0, 0])
        }
    }

    @Test func documentedStatusCodes() {
        let codes: [(LegacyStatus, UInt8)] = [
            (.noErrors, 0), (.processingError, 1), (.missingDeviceToken, 2), (.missingTopic, 3), (.missingPayload, 4),
            (.invalidTokenSize, 5), (.invalidTopicSize, 6), (.invalidPayloadSize, 7), (.invalidToken, 8),
            (.shutdown, 10), (.protocolError, 128), (.unknown, 255),
        ]
        for (status, code) in codes { #expect(status.rawValue == code) }
        #expect(LegacyStatus.invalidPayloadSize.description == "7 (invalid payload size)")
        #expect(LegacyStatus(rawValue: 42).description == "42 (undocumented)")
    }
}

struct LegacyFeedbackTests {
    @Test func tuplesRoundTripAcrossChunks() throws {
        let tokenA = try DeviceToken(hex: String(repeating: "a1", count: 32))
        let tuples = [
            LegacyFeedbackTuple(date: Date(timeIntervalSince1970: 1_400_000_000), deviceToken: tokenA),
            LegacyFeedbackTuple(timestamp: 5, deviceToken: [1, 2, 3, 4, 5, 6, 7, 8]),
        ]
        let stream = try tuples.flatMap { try $0.encoded() }
        #expect(Array(stream[0..<6]) == [0x53, 0x72, 0x4E, 0x00, 0, 32])  // 1_400_000_000 = 0x53724E00
        var decoder = LegacyFeedbackDecoder()
        var decoded: [LegacyFeedbackTuple] = []
        for byte in stream {
            decoder.append([byte])
            while let tuple = try decoder.next() { decoded.append(tuple) }
        }
        #expect(decoded == tuples)
        #expect(decoded[0].token == tokenA)
        #expect(decoded[0].date == Date(timeIntervalSince1970: 1_400_000_000))
    }

    @Test func zeroLengthTokenIsAnError() {
        var decoder = LegacyFeedbackDecoder()
        decoder.append([0, 0, 0, 1, 0, 0])
        #expect(throws: LegacyCodecError.self) { try decoder.next() }
    }
}
