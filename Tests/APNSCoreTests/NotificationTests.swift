import Foundation
import Testing

@testable import APNSCore

struct NotificationDerivationTests {
    static let token = try! DeviceToken(hex: "43e798c31a282d129a34d84472bbdd7632562ff0732b58a85a27c5d9fdf59b69")

    @Test func contentAvailableOnlyBecomesBackgroundAtPriority5() throws {
        let request = try APNSNotification(deviceToken: Self.token, topic: "com.example.app", payload: .background()).prepare()
        #expect(request.pushType == .background)
        #expect(request.priority == .consideringDevicePower)
    }

    @Test func anythingElseBecomesAlertAtPriority10() throws {
        let request = try APNSNotification(deviceToken: Self.token, topic: "com.example.app", payload: .alert(body: "hi"))
            .prepare()
        #expect(request.pushType == .alert)
        #expect(request.priority == .immediately)
        let mixed = APNSPayload(aps: APNSAps(badge: 1, contentAvailable: true))
        #expect(APNSNotification(deviceToken: Self.token, topic: "t", payload: mixed).resolvedPushType == .alert)
    }

    @Test func aRetargetedRequestIsTheSameRequestForAnotherDevice() throws {
        let original = try APNSNotification(deviceToken: Self.token, topic: "com.example.app", payload: .alert(body: "hi"),
                                            collapseID: "news", apnsID: UUID()).prepare()
        let other = try DeviceToken(hex: "ab" + String(repeating: "0", count: 62))
        let id = UUID()
        let moved = original.retargeted(to: other, apnsID: id)
        #expect(moved.path == "/3/device/ab" + String(repeating: "0", count: 62))
        #expect(moved.apnsID == id && moved.deviceToken == other)
        #expect(moved.body == original.body && moved.sharesHeaders(with: original))
        let fresh = try APNSNotification(deviceToken: other, topic: "com.example.app", payload: .alert(body: "hi"),
                                         collapseID: "news", apnsID: id).prepare()
        #expect(moved.headers(authority: "api.push.apple.com").map(\.description) == fresh.headers(authority: "api.push.apple.com").map(\.description))
    }

    @Test func uncheckedBytesDefaultToAlert() {
        let encoded = APNSEncodedPayload(uncheckedBytes: Array(#"{"aps":{"content-available":1}}"#.utf8))
        let notification = APNSNotification(deviceToken: Self.token, topic: "t", encodedPayload: encoded)
        #expect(notification.resolvedPushType == .alert)
    }

    @Test func explicitValuesWin() throws {
        let request = try APNSNotification(
            deviceToken: Self.token, topic: "com.example.app.voip", payload: .alert(body: "call"), pushType: .voip,
            priority: .consideringDevicePower
        ).prepare()
        #expect(request.pushType == .voip)
        #expect(request.priority == .consideringDevicePower)
    }

    @Test func aSharedEncodedPayloadIsSentAsIs() throws {
        let shared = APNSPayload.alert(title: "Sale", body: "50% off").encoded()
        let other = try DeviceToken(hex: String(repeating: "ab", count: 32))
        let first = try APNSNotification(deviceToken: Self.token, topic: "com.example.app", encodedPayload: shared).prepare()
        let second = try APNSNotification(deviceToken: other, topic: "com.example.app", encodedPayload: shared).prepare()
        #expect(first.body == shared.bytes && second.body == shared.bytes)
        #expect(first.path != second.path)
    }
}

struct NotificationHeaderTests {
    @Test func headerListIsExactAndOrdered() throws {
        let id = UUID(uuidString: "3F1E2D4C-5B6A-4789-8ABC-DEF012345678")!
        let request = try APNSNotification(
            deviceToken: NotificationDerivationTests.token, topic: "com.example.app", payload: .alert(body: "hi"),
            expiration: .at(Date(timeIntervalSince1970: 1_700_000_000.9)), collapseID: "score-42", apnsID: id
        ).prepare()
        let headers = request.headers().map { "\($0.name): \($0.value)" }
        #expect(
            headers == [
                ":method: POST",
                ":scheme: https",
                ":path: /3/device/43e798c31a282d129a34d84472bbdd7632562ff0732b58a85a27c5d9fdf59b69",
                "apns-topic: com.example.app",
                "apns-push-type: alert",
                "apns-priority: 10",
                "apns-expiration: 1700000000",
                "apns-collapse-id: score-42",
                "apns-id: 3f1e2d4c-5b6a-4789-8abc-def012345678",
            ])
    }

    @Test func optionalHeadersAreLeftOutAndAuthorityAndAuthorizationGoInPlace() throws {
        let request = try APNSNotification(
            deviceToken: NotificationDerivationTests.token, topic: "com.example.app", payload: .background(),
            expiration: .immediately
        ).prepare()
        let names = request.headers(authority: "api.push.apple.com", authorization: "bearer x.y.z").map(\.name)
        #expect(
            names == [
                ":method", ":scheme", ":authority", ":path", "authorization", "apns-topic", "apns-push-type",
                "apns-priority", "apns-expiration",
            ])
        #expect(request.headers().first { $0.name == "apns-expiration" }?.value == "0")
        #expect(request.headers().first { $0.name == "apns-priority" }?.value == "5")
    }

    @Test func expirationHelpersUseTheInjectedClock() {
        let now = Date(timeIntervalSince1970: 1_000)
        #expect(APNSExpiration.after(3600, from: now).unixSeconds == 4_600)
        #expect(APNSExpiration.immediately.date == nil)
        #expect(APNSExpiration(unixSeconds: 300).date == Date(timeIntervalSince1970: 300))
    }
}

struct NotificationValidationTests {
    static let token = NotificationDerivationTests.token

    func failure(_ notification: APNSNotification) -> APNSValidationError? {
        do {
            _ = try notification.prepare()
            return nil
        } catch {
            return error
        }
    }

    @Test func payloadOverTheLimitNamesSizeAndLimit() {
        let big = APNSPayload.alert(body: String(repeating: "x", count: 4100))
        let error = failure(APNSNotification(deviceToken: Self.token, topic: "com.example.app", payload: big))
        let size = big.jsonBytes().count
        #expect(error == .payloadTooLarge(byteCount: size, limit: 4096, pushType: .alert))
        #expect(error?.description.contains("\(size) bytes, over the 4096-byte limit for push type alert") == true)
        #expect(error?.apnsReason == .payloadTooLarge)
    }

    @Test func voipAllows5120Bytes() {
        let payload = APNSPayload(aps: APNSAps(), custom: ["blob": .string(String(repeating: "v", count: 5000))])
        let voip = APNSNotification(deviceToken: Self.token, topic: "com.example.app.voip", payload: payload, pushType: .voip)
        #expect(failure(voip) == nil)
        var tooBig = voip
        tooBig.payload = .model(APNSPayload(aps: APNSAps(), custom: ["blob": .string(String(repeating: "v", count: 5200))]))
        #expect(failure(tooBig)?.description.contains("over the 5120-byte limit for push type voip") == true)
    }

    @Test func exactlyAtTheLimitIsAccepted() {
        let overhead = APNSPayload.alert(body: "").jsonBytes().count
        let payload = APNSPayload.alert(body: String(repeating: "y", count: 4096 - overhead))
        #expect(payload.jsonBytes().count == 4096)
        #expect(failure(APNSNotification(deviceToken: Self.token, topic: "com.example.app", payload: payload)) == nil)
    }

    @Test func backgroundWithPriority10IsRejected() {
        let error = failure(
            APNSNotification(deviceToken: Self.token, topic: "com.example.app", payload: .background(), priority: .immediately))
        #expect(error == .backgroundPriorityTooHigh)
        #expect(error?.description.contains("must use apns-priority 5, not 10") == true)
    }

    @Test func topicLackingTheRequiredSuffixIsRejected() {
        let error = failure(
            APNSNotification(deviceToken: Self.token, topic: "com.example.app", payload: .alert(body: "x"), pushType: .liveactivity))
        #expect(error == .topicMissingSuffix(topic: "com.example.app", pushType: .liveactivity, requiredSuffix: ".push-type.liveactivity"))
        #expect(error?.description.contains("\"com.example.app.push-type.liveactivity\"") == true)
        #expect(error?.apnsReason == .badTopic)
        // The suffix alone is not a topic.
        #expect(failure(APNSNotification(deviceToken: Self.token, topic: ".voip", payload: .alert(body: "x"), pushType: .voip)) != nil)
    }

    @Test func alertToAVoipTopicIsRejected() {
        let error = failure(APNSNotification(deviceToken: Self.token, topic: "com.example.app.voip", payload: .alert(body: "x")))
        #expect(error == .topicHasSuffixOfOtherPushType(topic: "com.example.app.voip", pushType: .alert, suffixOf: .voip))
        #expect(error?.description.contains("ends with \".voip\", the suffix of push type voip, but the push type is alert") == true)
    }

    @Test func mdmAndUnknownTypesHaveNoSuffixRule() {
        let mdm = APNSNotification(
            deviceToken: Self.token, topic: "com.apple.mgmt.External.1234", payload: APNSPayload(aps: nil, custom: ["mdm": "magic"]),
            pushType: .mdm)
        #expect(failure(mdm) == nil)
        let future = APNSNotification(
            deviceToken: Self.token, topic: "com.example.app.anything", payload: .alert(body: "x"),
            pushType: APNSPushType(rawValue: "hologram"))
        #expect(failure(future) == nil)
    }

    @Test func emptyTopicIsRejected() {
        let error = failure(APNSNotification(deviceToken: Self.token, topic: "", payload: .alert(body: "x")))
        #expect(error == .emptyTopic)
        #expect(error?.description.contains("apns-topic is empty") == true)
    }

    @Test func collapseIDOver64UTF8BytesIsRejected() {
        let ok = String(repeating: "a", count: 64)
        #expect(failure(APNSNotification(deviceToken: Self.token, topic: "t", payload: .alert(body: "x"), collapseID: ok)) == nil)
        let tooLong = String(repeating: "推", count: 22)  // 22 characters, 66 UTF-8 bytes
        let error = failure(APNSNotification(deviceToken: Self.token, topic: "t", payload: .alert(body: "x"), collapseID: tooLong))
        #expect(error == .collapseIDTooLong(byteCount: 66, limit: 64))
        #expect(error?.description.contains("66 bytes, over the limit of 64 bytes") == true)
    }

    @Test func malformedTokenStringIsRejected() {
        #expect {
            _ = try APNSNotification(deviceTokenHex: "43e798c3zz", topic: "t", payload: .alert(body: "x"))
        } throws: { error in
            guard let error = error as? APNSValidationError else { return false }
            return error == .invalidDeviceToken(.invalidCharacter("z", position: 9))
                && error.description.contains("non-hex character \"z\" at position 9")
                && error.apnsReason == .badDeviceToken
        }
    }

    @Test func backgroundWithAlertBadgeOrSoundIsRejected() {
        let payload = APNSPayload(aps: APNSAps(alert: "hi", badge: 1, contentAvailable: true))
        let error = failure(APNSNotification(deviceToken: Self.token, topic: "t", payload: payload, pushType: .background))
        #expect(error == .backgroundWithUserVisibleContent(keys: ["alert", "badge"]))
        #expect(error?.description.contains("must not carry alert, badge in aps") == true)
    }

    @Test func backgroundWithOtherApsKeysIsAllowed() {
        let payload = APNSPayload(aps: APNSAps(threadID: "sync", contentAvailable: true), custom: ["since": 12])
        #expect(failure(APNSNotification(deviceToken: Self.token, topic: "t", payload: payload, pushType: .background)) == nil)
    }

    @Test func backgroundWithoutContentAvailableIsRejected() {
        let error = failure(
            APNSNotification(deviceToken: Self.token, topic: "t", payload: APNSPayload(aps: APNSAps()), pushType: .background))
        #expect(error == .backgroundWithoutContentAvailable)
        #expect(error?.description.contains("needs aps.content-available = 1") == true)
    }

    @Test func customApsKeyIsRejected() {
        let payload = APNSPayload(aps: APNSAps(alert: "x"), custom: ["aps": 1])
        let error = failure(APNSNotification(deviceToken: Self.token, topic: "t", payload: payload))
        #expect(error == .customKeyNamedAps)
        #expect(error?.description.contains("custom payload key is named \"aps\"") == true)
    }

    @Test func emptyBodyIsRejected() {
        let error = failure(APNSNotification(deviceToken: Self.token, topic: "t", encodedPayload: APNSEncodedPayload(uncheckedBytes: [])))
        #expect(error == .payloadEmpty)
        #expect(error?.description.contains("payload is empty") == true)
    }

    @Test func undocumentedPriorityIsRejected() {
        let error = failure(
            APNSNotification(deviceToken: Self.token, topic: "t", payload: .alert(body: "x"), priority: APNSPriority(rawValue: 7)))
        #expect(error == .invalidPriority(7))
        #expect(error?.description.contains("apns-priority 7 is not valid") == true)
    }

    @Test func negativeExpirationIsRejected() {
        let error = failure(
            APNSNotification(
                deviceToken: Self.token, topic: "t", payload: .alert(body: "x"), expiration: APNSExpiration(unixSeconds: -5)))
        #expect(error == .negativeExpiration(-5))
        #expect(error?.description.contains("apns-expiration -5 is negative") == true)
    }

    /// Issue #13: Apple's Live Activity rules (A-LA) live here, where the server and `herald send` find them.
    @Test func liveActivityPushesNeedAnEventATimestampAndForStartTheAttributes() {
        let topic = "com.example.app.push-type.liveactivity"
        func la(_ aps: APNSAps, priority: APNSPriority? = nil) -> APNSNotification {
            APNSNotification(deviceToken: Self.token, topic: topic, payload: APNSPayload(aps: aps), pushType: .liveactivity, priority: priority)
        }
        let update = APNSAps(contentState: ["score": 3], timestamp: 1_800_000_000, event: .update)
        #expect(failure(la(update)) == nil)
        #expect(failure(la(update, priority: .consideringDevicePower)) == nil)
        let low = failure(la(update, priority: .prioritizingDevicePower))
        #expect(low == .priorityNotAllowed(priority: 1, pushType: .liveactivity, allowed: [10, 5]))
        #expect(low?.apnsReason == .badPriority)

        var noTimestamp = update
        noTimestamp.timestamp = nil
        #expect(failure(la(noTimestamp)) == .liveActivityWithoutTimestamp)
        var noEvent = update
        noEvent.event = nil
        #expect(failure(la(noEvent)) == .liveActivityWithoutEvent)
        var odd = update
        odd.event = APNSLiveActivityEvent(rawValue: "pause")
        #expect(failure(la(odd)) == .unknownLiveActivityEvent("pause"))

        var start = APNSAps(timestamp: 1_800_000_000, event: .start)
        #expect(failure(la(start)) == .liveActivityStartIncomplete(missing: ["alert", "attributes-type", "attributes"]))
        start.alert = .text("Kick-off")
        start.attributesType = "MatchAttributes"
        #expect(failure(la(start)) == .liveActivityStartIncomplete(missing: ["attributes"]))
        start.attributes = ["home": "A"]
        #expect(failure(la(start)) == nil)
        #expect(APNSValidationError.liveActivityStartIncomplete(missing: ["attributes"]).description.contains("attributes"))
    }

    @Test func aPayloadWithAnEventIsALiveActivity() throws {
        let payload = APNSPayload(aps: APNSAps(timestamp: 1, event: .end))
        let request = try APNSNotification(deviceToken: Self.token, topic: "com.example.app.push-type.liveactivity", payload: payload).prepare()
        #expect(request.pushType == .liveactivity && request.priority == .immediately)
        // Encoded bytes keep the traits the rules read.
        let decoded = try APNSEncodedPayload(validatingBytes: payload.jsonBytes())
        #expect(decoded.traits?.liveActivityEvent == .end && decoded.traits?.hasTimestamp == true)
    }

    @Test func validateThrowsWhatPrepareThrows() {
        let notification = APNSNotification(deviceToken: Self.token, topic: "", payload: .alert(body: "x"))
        #expect(throws: APNSValidationError.emptyTopic) { try notification.validate() }
    }
}
