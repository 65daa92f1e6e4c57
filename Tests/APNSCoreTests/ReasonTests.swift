import Testing

@testable import APNSCore

struct ReasonTests {
    /// Apple's table (reference §1.4), status and reason string.
    static let appleTable: [(Int, String)] = [
        (400, "BadCollapseId"), (400, "BadDeviceToken"), (400, "BadExpirationDate"), (400, "BadMessageId"),
        (400, "BadPriority"), (400, "BadTopic"), (400, "DeviceTokenNotForTopic"), (400, "DuplicateHeaders"),
        (400, "IdleTimeout"), (400, "InvalidPushType"), (400, "MissingDeviceToken"), (400, "MissingTopic"),
        (400, "PayloadEmpty"), (400, "TopicDisallowed"), (403, "BadCertificate"), (403, "BadCertificateEnvironment"),
        (403, "ExpiredProviderToken"), (403, "Forbidden"), (403, "InvalidProviderToken"), (403, "MissingProviderToken"),
        (403, "UnrelatedKeyIdInToken"), (403, "BadEnvironmentKeyIdInToken"), (404, "BadPath"),
        (405, "MethodNotAllowed"), (410, "ExpiredToken"), (410, "Unregistered"), (413, "PayloadTooLarge"),
        (429, "TooManyProviderTokenUpdates"), (429, "TooManyRequests"), (500, "InternalServerError"),
        (503, "ServiceUnavailable"), (503, "Shutdown"),
    ]

    @Test func everyReasonInApplesTableIsKnownWithItsStatus() {
        for (status, string) in Self.appleTable {
            let reason = APNSReason(rawValue: string)
            #expect(reason != .unknown(string), "\(string) should be a known reason")
            #expect(reason.status == status, "\(string)")
            #expect(reason.rawValue == string)
        }
    }

    @Test func unknownReasonsAreKeptVerbatim() {
        let reason = APNSReason(rawValue: "SomethingNew")
        #expect(reason == .unknown("SomethingNew"))
        #expect(reason.rawValue == "SomethingNew")
        #expect(reason.status == nil)
        #expect(!reason.isRetryable && !reason.isPermanent)
        #expect(APNSReason(rawValue: "unregistered") == .unknown("unregistered"))  // case-sensitive
    }

    @Test func knownReasonsAreExactlyOneOfRetryableOrPermanent() {
        for reason in APNSReason.allKnown {
            #expect(reason.isRetryable != reason.isPermanent, "\(reason)")
        }
    }

    @Test func applesNeverRetryListIsPermanent() {
        let never: [APNSReason] = [
            .badDeviceToken, .deviceTokenNotForTopic, .forbidden, .expiredToken, .unregistered, .payloadTooLarge,
        ]
        for reason in never { #expect(reason.isPermanent, "\(reason)") }
        for reason in APNSReason.allKnown where reason.rawValue.hasPrefix("Missing") || reason.rawValue.hasPrefix("Bad") {
            #expect(reason.isPermanent, "\(reason)")
        }
    }

    @Test func retryableReasonsSayWhatToDoFirst() {
        #expect(APNSReason.tooManyRequests.retryAction == .afterDelay)
        #expect(APNSReason.tooManyProviderTokenUpdates.retryAction == .afterDelay)
        #expect(APNSReason.internalServerError.retryAction == .backOff)
        #expect(APNSReason.serviceUnavailable.retryAction == .backOff)
        #expect(APNSReason.shutdown.retryAction == .newConnection)
        #expect(APNSReason.idleTimeout.retryAction == .newConnection)
        #expect(APNSReason.unrelatedKeyIDInToken.retryAction == .newConnection)
        #expect(APNSReason.expiredProviderToken.retryAction == .newProviderToken)
        #expect(APNSReason.allKnown.filter(\.isRetryable).count == 8)
    }

    @Test func exactlyFourReasonsRetireTheToken() {
        #expect(
            Set(APNSReason.allKnown.filter(\.retiresToken)) == [
                .unregistered, .expiredToken, .badDeviceToken, .deviceTokenNotForTopic,
            ])
    }

    @Test func credentialFailuresAreAll403sAndTopicDisallowed() {
        let credential = Set(APNSReason.allKnown.filter(\.isCredentialFailure))
        #expect(
            credential == [
                .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
                .missingProviderToken, .unrelatedKeyIDInToken, .badEnvironmentKeyIDInToken, .badEnvironmentKeyInToken,
                .topicDisallowed,
            ])
        #expect(!APNSReason.badDeviceToken.isCredentialFailure)
        #expect(!APNSReason.tooManyProviderTokenUpdates.isCredentialFailure)
    }
}
