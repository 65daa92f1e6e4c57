import Testing

@testable import APNSCore

struct PayloadEncodingTests {
    @Test func everyApsKeyIsWrittenInApplesOrder() throws {
        let aps = APNSAps(
            alert: .content(
                APNSAlertContent(
                    title: "T", subtitle: "S", body: "B", launchImage: "L.png", titleLocKey: "TK", titleLocArgs: ["t1"],
                    subtitleLocKey: "SK", subtitleLocArgs: ["s1", "s2"], locKey: "BK", locArgs: [], actionLocKey: .key("VIEW"),
                    action: "open", summaryArg: "Bob", summaryArgCount: 2, urlArgs: ["a/b"])),
            badge: 0,
            sound: .critical(APNSCriticalSound(name: "siren.caf", volume: 0.5)),
            threadID: "th",
            category: "cat",
            contentAvailable: true,
            mutableContent: true,
            targetContentID: "win",
            interruptionLevel: .timeSensitive,
            relevanceScore: 0.75,
            filterCriteria: "work",
            staleDate: 1_700_000_100,
            contentState: ["score": 3, "team": "A"],
            timestamp: 1_700_000_000,
            event: .update,
            dismissalDate: 1_700_000_200,
            attributesType: "MatchAttributes",
            attributes: ["home": "X"],
            inputPushToken: true,
            inputPushChannel: "ch1",
            contentChanged: true)
        let expected =
            #"{"aps":{"alert":{"title":"T","subtitle":"S","body":"B","launch-image":"L.png","title-loc-key":"TK","#
            + #""title-loc-args":["t1"],"subtitle-loc-key":"SK","subtitle-loc-args":["s1","s2"],"loc-key":"BK","#
            + #""loc-args":[],"action-loc-key":"VIEW","action":"open","summary-arg":"Bob","summary-arg-count":2,"#
            + #""url-args":["a/b"]},"badge":0,"sound":{"critical":1,"name":"siren.caf","volume":0.5},"thread-id":"th","#
            + #""category":"cat","content-available":1,"mutable-content":1,"target-content-id":"win","#
            + #""interruption-level":"time-sensitive","relevance-score":0.75,"filter-criteria":"work","#
            + #""stale-date":1700000100,"content-state":{"score":3,"team":"A"},"timestamp":1700000000,"#
            + #""event":"update","dismissal-date":1700000200,"attributes-type":"MatchAttributes","#
            + #""attributes":{"home":"X"},"input-push-token":1,"input-push-channel":"ch1","content-changed":true}}"#
        let payload = APNSPayload(aps: aps)
        #expect(String(decoding: payload.jsonBytes(), as: UTF8.self) == expected)
        #expect(try APNSPayload(jsonBytes: Array(expected.utf8)) == payload)
    }

    @Test func falseFlagsAndNilFieldsAreLeftOut() {
        #expect(APNSPayload(aps: APNSAps()).jsonBytes() == Array(#"{"aps":{}}"#.utf8))
        #expect(APNSPayload(aps: nil, custom: ["mdm": "magic"]).jsonBytes() == Array(#"{"mdm":"magic"}"#.utf8))
    }

    @Test func removeBadgeWritesZero() {
        var aps = APNSAps(badge: 5)
        aps.removeBadge()
        #expect(APNSPayload(aps: aps).jsonBytes() == Array(#"{"aps":{"badge":0}}"#.utf8))
    }

    @Test func legacyActionLocKeyNullHidesTheViewButton() throws {
        let payload = APNSPayload(aps: APNSAps(alert: .content(APNSAlertContent(body: "hi", actionLocKey: .hideViewButton))))
        let json = #"{"aps":{"alert":{"body":"hi","action-loc-key":null}}}"#
        #expect(payload.jsonBytes() == Array(json.utf8))
        #expect(try APNSPayload(jsonBytes: Array(json.utf8)) == payload)
    }

    @Test func customKeysFollowApsInInsertionOrderAndACustomApsKeyIsNeverWritten() {
        var custom: JSONObject = ["zeta": 1, "alpha": ["nested": [1, 2.5]]]
        custom["aps"] = "clash"
        let payload = APNSPayload(aps: APNSAps(alert: "x"), custom: custom)
        #expect(payload.jsonBytes() == Array(#"{"aps":{"alert":"x"},"zeta":1,"alpha":{"nested":[1,2.5]}}"#.utf8))
        #expect(payload.traits.hasCustomApsKey)
    }

    @Test func extraKeysNeverDuplicateATypedKey() {
        let aps = APNSAps(badge: 3, extra: ["badge": 99, "sound": "kept.caf", "x": true])
        #expect(APNSPayload(aps: aps).jsonBytes() == Array(#"{"aps":{"badge":3,"sound":"kept.caf","x":true}}"#.utf8))
        let alert = APNSAlertContent(title: "typed", extra: ["title": "shadowed", "body": ["loc-key": "K"]])
        #expect(
            APNSPayload(aps: APNSAps(alert: .content(alert))).jsonBytes()
                == Array(#"{"aps":{"alert":{"title":"typed","body":{"loc-key":"K"}}}}"#.utf8))
    }

    @Test func stringsAreEscapedInsideThePayload() {
        let payload = APNSPayload.alert(body: "line1\nline2 \"quoted\" 推送")
        #expect(payload.jsonBytes() == Array(#"{"aps":{"alert":"line1\nline2 \"quoted\" 推送"}}"#.utf8))
    }

    @Test func traitsDescribeVisibilityAndBackgroundOnly() {
        #expect(APNSPayload.background().traits.isBackgroundOnly)
        let mixed = APNSPayload(aps: APNSAps(alert: "a", sound: .default, contentAvailable: true))
        #expect(mixed.traits.userVisibleKeys == ["alert", "sound"])
        #expect(!mixed.traits.isBackgroundOnly)
        #expect(!APNSPayload.alert(body: "x").traits.contentAvailable)
    }
}

struct PayloadDecodingTests {
    @Test func lenientValuesAreAccepted() throws {
        let json = #"{"aps":{"badge":" 7 ","content-available":true,"mutable-content":"1","input-push-token":1.0,"timestamp":1700000000.0,"relevance-score":1}}"#
        let aps = try #require(try APNSPayload(jsonBytes: Array(json.utf8)).aps)
        #expect(aps.badge == 7)
        #expect(aps.contentAvailable)
        #expect(aps.mutableContent)
        #expect(aps.inputPushToken)
        #expect(aps.timestamp == 1_700_000_000)
        #expect(aps.relevanceScore == 1.0)
    }

    @Test func zeroFlagsDecodeAsFalse() throws {
        let aps = try APNSPayload(jsonBytes: Array(#"{"aps":{"content-available":0,"mutable-content":false}}"#.utf8)).aps
        #expect(aps?.contentAvailable == false)
        #expect(aps?.mutableContent == false)
    }

    @Test func unknownKeysAreKeptInOrder() throws {
        let json = #"{"aps":{"alert":{"body":"b","title":{"loc-key":"T"},"foo":1},"zz":2,"aa":3},"c2":0,"c1":1}"#
        let payload = try APNSPayload(jsonBytes: Array(json.utf8))
        #expect(payload.aps?.extra.keys == ["zz", "aa"])
        #expect(payload.custom.keys == ["c2", "c1"])
        guard case .content(let alert)? = payload.aps?.alert else {
            Issue.record("alert should be a dictionary")
            return
        }
        #expect(alert.body == "b")
        #expect(alert.title == nil)
        #expect(alert.extra.keys == ["title", "foo"])
        #expect(payload.jsonBytes() == Array(json.utf8))
    }

    @Test func liveActivityPayloadRoundTrips() throws {
        let json =
            #"{"aps":{"alert":{"title":{"loc-key":"%@ scored","loc-args":["Ann"]},"body":"Goal","sound":"goal.caf"},"#
            + #""content-state":{"home":2,"away":1},"timestamp":1700000000,"event":"start","#
            + #""attributes-type":"ScoreAttributes","attributes":{"match":"final"},"input-push-token":1}}"#
        let payload = try APNSPayload(jsonBytes: Array(json.utf8))
        #expect(payload.aps?.event == .start)
        #expect(payload.aps?.contentState?["home"] == 2)
        #expect(payload.aps?.attributesType == "ScoreAttributes")
        #expect(try JSONValue(parsing: payload.jsonBytes()) == JSONValue(parsing: json))
    }

    @Test(arguments: [
        (#"[1]"#, "a payload must be a JSON object, found an array"),
        (#"{"aps":[]}"#, "aps: expected an object, found an array"),
        (#"{"aps":{"badge":"many"}}"#, "aps.badge: expected an integer or a numeric string, found string \"many\""),
        (#"{"aps":{"badge":2.5}}"#, "aps.badge: expected an integer or a numeric string, found number 2.5"),
        (#"{"aps":{"alert":7}}"#, "aps.alert: expected a string or an object, found integer 7"),
        (#"{"aps":{"alert":{"loc-args":["a",3]}}}"#, "aps.alert.loc-args[1]: expected a string, found integer 3"),
        (#"{"aps":{"content-available":2}}"#, "aps.content-available: expected 1 or 0 (or true/false), found integer 2"),
        (#"{"aps":{"sound":{"volume":"loud"}}}"#, "aps.sound.volume: expected a number, found string \"loud\""),
        (#"{"aps":{"content-state":"x"}}"#, "aps.content-state: expected an object, found string \"x\""),
        (#"{"aps":{"stale-date":"tomorrow"}}"#, "aps.stale-date: expected an integer, found string \"tomorrow\""),
        (#"{"aps":{"thread-id":null}}"#, "aps.thread-id: expected a string, found null"),
    ])
    func wrongKindsAreReportedWithTheKeyPath(json: String, message: String) {
        #expect {
            _ = try APNSPayload(jsonBytes: Array(json.utf8))
        } throws: { error in
            (error as? APNSDecodingError)?.description == message
        }
    }

    @Test func criticalSoundDecodes() throws {
        let json = #"{"aps":{"sound":{"critical":1,"name":"default","volume":1}}}"#
        let sound = try APNSPayload(jsonBytes: Array(json.utf8)).aps?.sound
        #expect(sound == .critical(APNSCriticalSound(isCritical: true, name: "default", volume: 1.0)))
    }

    @Test func encodedPayloadValidatingBytesLearnsTraits() throws {
        let bytes = Array(#"{"aps":{"content-available":1},"sync":"inbox"}"#.utf8)
        let encoded = try APNSEncodedPayload(validatingBytes: bytes)
        #expect(encoded.bytes == bytes)
        #expect(encoded.traits?.isBackgroundOnly == true)
        #expect(APNSEncodedPayload(uncheckedBytes: bytes).traits == nil)
        #expect(throws: APNSDecodingError.self) { try APNSEncodedPayload(validatingBytes: Array("nope".utf8)) }
    }
}
