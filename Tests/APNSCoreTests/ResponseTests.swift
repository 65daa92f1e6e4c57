import Foundation
import Testing

@testable import APNSCore

struct ErrorBodyTests {
    @Test func decodesReasonAndTimestamp() throws {
        let body = try APNSErrorBody(jsonBytes: Array(#"{"reason":"Unregistered","timestamp":1454402113000}"#.utf8))
        #expect(body.reason == .unregistered)
        #expect(body.timestampMilliseconds == 1_454_402_113_000)
        #expect(body.timestamp == Date(timeIntervalSince1970: 1_454_402_113))
    }

    @Test func decodesReasonWithoutTimestampAndIgnoresUnknownMembers() throws {
        let body = try APNSErrorBody(jsonBytes: Array(#"{"extra":[1],"reason":"BadDeviceToken"}"#.utf8))
        #expect(body == APNSErrorBody(reason: .badDeviceToken))
    }

    @Test func encodesTheSameShapeTheSimulatorSends() throws {
        #expect(APNSErrorBody(reason: .badTopic).jsonBytes() == Array(#"{"reason":"BadTopic"}"#.utf8))
        let gone = APNSErrorBody(reason: .unregistered, timestamp: Date(timeIntervalSince1970: 1_700_000_000.1234))
        #expect(gone.jsonBytes() == Array(#"{"reason":"Unregistered","timestamp":1700000000123}"#.utf8))
        #expect(try APNSErrorBody(jsonBytes: gone.jsonBytes()) == gone)
    }

    @Test func rejectsBodiesWithoutAStringReason() {
        #expect(throws: APNSDecodingError(path: "reason", problem: "error body has no reason")) {
            try APNSErrorBody(jsonBytes: Array("{}".utf8))
        }
        #expect(throws: APNSDecodingError(path: "reason", problem: "expected a string, found integer 5")) {
            try APNSErrorBody(jsonBytes: Array(#"{"reason":5}"#.utf8))
        }
        #expect(throws: APNSDecodingError.self) { try APNSErrorBody(jsonBytes: Array("<html>".utf8)) }
        #expect(throws: APNSDecodingError.self) {
            try APNSErrorBody(jsonBytes: Array(#"{"reason":"Unregistered","timestamp":"soon"}"#.utf8))
        }
    }
}

struct ResponseInterpretationTests {
    static let id = UUID(uuidString: "3F1E2D4C-5B6A-4789-8ABC-DEF012345678")!

    @Test func successCarriesApnsIDAndUniqueID() throws {
        let unique = UUID()
        let result = APNSResponse.interpret(
            status: 200, apnsID: Self.id.uuidString.lowercased(), apnsUniqueID: unique.uuidString.lowercased(), body: [])
        #expect(try result.get() == APNSSuccess(apnsID: Self.id, apnsUniqueID: unique))
    }

    @Test func successWithoutHeaderFallsBackToTheRequestID() throws {
        let result = APNSResponse.interpret(status: 200, apnsID: nil, body: [], requestAPNSID: Self.id)
        #expect(try result.get().apnsID == Self.id)
    }

    /// The request's apns-id text lets an echo of it through without parsing; anything else is parsed.
    @Test func anAnswerEchoingTheSentIDIsTheRequestsAndAnyOtherIDIsTheAnswers() throws {
        let sent = Self.id.lowercasedString
        let echo = APNSResponse.interpret(status: 200, apnsID: sent, body: [], requestAPNSID: Self.id, requestAPNSIDText: sent)
        #expect(try echo.get().apnsID == Self.id)
        // The echo is not parsed: the request's id is taken as it is (here, on purpose, not the text's).
        let named = UUID()
        let trusted = APNSResponse.interpret(status: 200, apnsID: sent, body: [], requestAPNSID: named, requestAPNSIDText: sent)
        #expect(try trusted.get().apnsID == named)
        let upper = APNSResponse.interpret(status: 200, apnsID: Self.id.uuidString, body: [], requestAPNSID: Self.id, requestAPNSIDText: sent)
        #expect(try upper.get().apnsID == Self.id, "the same id in capitals is parsed")
        let other = UUID()
        let answer = APNSResponse.interpret(status: 200, apnsID: other.uuidString.lowercased(), body: [], requestAPNSID: Self.id,
                                            requestAPNSIDText: sent)
        #expect(try answer.get().apnsID == other, "APNs' own id wins over the one sent")
        guard case .failure(let error) = APNSResponse.interpret(status: 400, apnsID: sent, body: Array(#"{"reason":"BadTopic"}"#.utf8),
                                                                requestAPNSID: Self.id, requestAPNSIDText: sent) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.apnsID == Self.id && error.reason == .badTopic)
    }

    @Test func goneCarriesReasonTimestampAndRetiresTheToken() {
        let body = Array(#"{"reason":"Unregistered","timestamp":1454402113000}"#.utf8)
        guard case .failure(let error) = APNSResponse.interpret(status: 410, apnsID: Self.id.uuidString, body: body) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.status == 410)
        #expect(error.reason == .unregistered)
        #expect(error.timestamp == Date(timeIntervalSince1970: 1_454_402_113))
        #expect(error.apnsID == Self.id)
        #expect(error.retiresToken && !error.isRetryable && !error.isCredentialFailure)
        #expect(error.description.contains("HTTP 410 Unregistered"))
    }

    @Test func unknownOrMissingReasonsFallBackToTheStatus() {
        func failure(_ status: Int, _ body: String) -> APNSError? {
            if case .failure(let error) = APNSResponse.interpret(status: status, apnsID: nil, body: Array(body.utf8)) {
                return error
            }
            return nil
        }
        #expect(failure(502, "<html>bad gateway</html>")?.isRetryable == true)
        #expect(failure(502, "<html>bad gateway</html>")?.reason == nil)
        #expect(failure(429, #"{"reason":"SlowDown"}"#)?.isRetryable == true)
        #expect(failure(400, #"{"reason":"SomethingNew"}"#)?.isRetryable == false)
        #expect(failure(403, #"{"reason":"InvalidProviderToken"}"#)?.isCredentialFailure == true)
        #expect(failure(503, #"{"reason":"Shutdown"}"#)?.isRetryable == true)
    }
}
