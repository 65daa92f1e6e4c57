import Testing

@testable import APNSCore

struct PushTypeTests {
    @Test(arguments: [
        (APNSPushType.alert, nil as String?), (.background, nil), (.voip, ".voip"), (.complication, ".complication"),
        (.fileprovider, ".pushkit.fileprovider"), (.mdm, nil), (.location, ".location-query"),
        (.liveactivity, ".push-type.liveactivity"), (.pushtotalk, ".voip-ptt"), (.widgets, ".push-type.widgets"),
        (.controls, ".push-type.controls"),
    ])
    func eachTypeHasItsTopicSuffix(type: APNSPushType, suffix: String?) {
        #expect(type.requiredTopicSuffix == suffix)
        #expect(type.topic(forBundleID: "com.example.app") == "com.example.app" + (suffix ?? ""))
        #expect(type.isKnown)
    }

    @Test func headerValuesAreApplesStrings() {
        #expect(APNSPushType.allKnown.map(\.rawValue) == [
            "alert", "background", "voip", "complication", "fileprovider", "mdm", "location", "liveactivity",
            "pushtotalk", "widgets", "controls",
        ])
    }

    @Test func voipAloneGetsTheLargerPayloadLimit() {
        for type in APNSPushType.allKnown {
            #expect(type.payloadSizeLimit == (type == .voip ? 5120 : 4096))
        }
    }

    @Test func unknownTypesStayRepresentable() {
        let future = APNSPushType(rawValue: "hologram")
        #expect(!future.isKnown)
        #expect(future.requiredTopicSuffix == nil)
        #expect(future.description == "hologram")
    }

    @Test func locationAndLiveActivityNeedTokenAuthentication() {
        #expect(APNSPushType.allKnown.filter(\.requiresTokenAuthentication) == [.location, .liveactivity])
    }
}

struct PriorityTests {
    @Test func documentedValues() {
        #expect(APNSPriority.immediately.rawValue == 10)
        #expect(APNSPriority.consideringDevicePower.rawValue == 5)
        #expect(APNSPriority.prioritizingDevicePower.rawValue == 1)
    }

    @Test func headerParsingAcceptsOnlyDocumentedValues() {
        #expect(APNSPriority(headerValue: "10") == .immediately)
        #expect(APNSPriority(headerValue: "5") == .consideringDevicePower)
        #expect(APNSPriority(headerValue: "1") == .prioritizingDevicePower)
        #expect(APNSPriority(headerValue: "7") == nil)
        #expect(APNSPriority(headerValue: "high") == nil)
    }
}

struct EnvironmentTests {
    @Test func appleHostsAndPorts() {
        #expect(APNSEnvironment.production.host == "api.push.apple.com")
        #expect(APNSEnvironment.sandbox.host == "api.sandbox.push.apple.com")
        #expect(APNSEnvironment.production.port == 443)
        #expect(APNSEnvironment.sandbox.usingAlternativePort.port == 2197)
        #expect(APNSEnvironment.sandbox.usingAlternativePort.host == "api.sandbox.push.apple.com")
    }

    @Test func authorityOmitsTheDefaultPort() {
        #expect(APNSEnvironment.production.authority == "api.push.apple.com")
        #expect(APNSEnvironment.production.usingAlternativePort.authority == "api.push.apple.com:2197")
        #expect(APNSEnvironment.custom(host: "127.0.0.1", port: 8443).authority == "127.0.0.1:8443")
    }

    @Test func recognisesAppleEnvironments() {
        #expect(APNSEnvironment.production.isAppleProduction)
        #expect(APNSEnvironment.sandbox.isAppleSandbox)
        #expect(APNSEnvironment(host: "api.development.push.apple.com").isAppleSandbox)
        #expect(!APNSEnvironment.custom(host: "localhost", port: 2197).isAppleSandbox)
    }

    @Test func legacyEndpoints() {
        #expect(APNSEnvironment.legacyGatewaySandbox.description == "gateway.sandbox.push.apple.com:2195")
        #expect(APNSEnvironment.legacyFeedbackProduction.description == "feedback.push.apple.com:2196")
    }
}

struct OpenValueSetTests {
    @Test func interruptionLevelsAndEvents() {
        #expect(
            [APNSInterruptionLevel.passive, .active, .timeSensitive, .critical].map(\.rawValue) == [
                "passive", "active", "time-sensitive", "critical",
            ])
        #expect([APNSLiveActivityEvent.start, .update, .end].map(\.rawValue) == ["start", "update", "end"])
    }
}
