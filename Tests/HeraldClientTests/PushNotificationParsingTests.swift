import Foundation
import Testing
@testable import HeraldClient

@Suite struct PushNotificationParsingTests {
    @Test func seed000NewsPushWithCustomKeyInsideAps() throws {
        let push = try PushNotification(jsonData: Data("""
            {"aps":{"alert":"Breaking News!","sound":"default","link_url":"https://raywenderlich.com","category":"NEWS_CATEGORY"}}
            """.utf8))
        #expect(push.alert == PushAlert(body: "Breaking News!"))
        #expect(push.sound == PushSound(name: "default"))
        #expect(push.category == "NEWS_CATEGORY")
        #expect(push.value(at: "link_url") == "https://raywenderlich.com")
        #expect(push.customData.isEmpty)
        #expect(push.isSilent == false)
    }

    @Test func seed000SilentPushWithContentAvailableAsAString() throws {
        let push = try PushNotification(jsonData: Data(#"{"aps":{"content-available":"1"}}"#.utf8))
        #expect(push.isContentAvailable)
        #expect(push.isSilent)
    }

    @Test func seed001RichPushWithTitleSubtitleAttachmentAndNestedData() throws {
        let push = try PushNotification(jsonData: Data("""
            {"aps":{"alert":{"body":"我是整个alert的标题","title":"我是一个主标题","subtitle":"我是一个副标题"},
             "mutable-content":1,"badge":13,"sound":"default",
             "data":{"tid":10003,"id":0,"type":0,"systype":5,"url":"http://t.imooc.com","helloKey":"helloValue"},
             "category":"CATEGORY_ID"},
             "my-attachment":"http://newpic.jxnews.com.cn/003/001/209/00300120964_fab36aec.jpg"}
            """.utf8))
        #expect(push.alert == PushAlert(title: "我是一个主标题", subtitle: "我是一个副标题", body: "我是整个alert的标题"))
        #expect(push.isMutableContent)
        #expect(push.badge == 13)
        #expect(push.category == "CATEGORY_ID")
        #expect(push.value(at: "data", "systype")?.intValue == 5)
        #expect(push.value(at: "data", "helloKey") == "helloValue")
        #expect(push.customData["my-attachment"]?.stringValue?.hasSuffix(".jpg") == true)
    }

    @Test func seed002TitleAndBodyAlert() throws {
        let push = try PushNotification(jsonData: Data(#"{"aps":{"alert":{"title":"Game Request","body":"Bob wants to play poker"},"badge":1}}"#.utf8))
        #expect(push.alert?.title == "Game Request")
        #expect(push.alert?.body == "Bob wants to play poker")
        #expect(push.badge == 1)
    }

    @Test func seed003LeanCloudCustomKeysAtTheTopLevel() {
        // What the app receives for LeanCloud's {"action":{"type":4},"alert":"hello, everyone"}.
        let userInfo: [AnyHashable: Any] = [
            "action": ["type": 4],
            "aps": ["alert": "hello, everyone", "badge": 4],
        ]
        let push = PushNotification(userInfo: userInfo)
        #expect(push.alert?.body == "hello, everyone")
        #expect(push.badge == 4)
        #expect(push.value(at: "action", "type") == 4)
    }

    @Test func leanCloudDataWithoutApsIsReadFromTheTopLevel() throws {
        let push = try PushNotification(jsonData: Data(#"{"action":{"type":4},"alert":"hello, everyone","badge":"Increment","sound":"default"}"#.utf8))
        #expect(push.alert?.body == "hello, everyone")
        #expect(push.sound?.name == "default")
        #expect(push.badge == nil)
        #expect(push.customData.keys.sorted() == ["action"])
    }

    @Test func seed004JPushExtrasAtTheTopLevel() {
        let userInfo: [AnyHashable: Any] = [
            "_j_msgid": 813843507, "_j_business": 1, "_j_uid": 11270798365, "_j_data_": "{\"data\":1}",
            "key": "https://example.com/page",
            "aps": ["alert": ["title": "JPush", "body": "hello"], "badge": 1, "sound": "default"],
        ]
        let push = PushNotification(userInfo: userInfo)
        #expect(push.alert?.title == "JPush")
        #expect(push.customData["_j_msgid"]?.intValue == 813843507)
        #expect(push.customData["key"] == "https://example.com/page")
        #expect(push.heraldPushId == nil)
    }

    @Test func heraldPushIdIsReadAndKeptOutOfCustomData() throws {
        let push = try PushNotification(jsonData: Data(#"{"aps":{"alert":"hi"},"herald":{"pushId":"p_123"},"orderId":"9"}"#.utf8))
        #expect(push.heraldPushId == "p_123")
        #expect(push.customData == ["orderId": "9"])
    }

    @Test func numbersAsStringsAndBooleansAsNumbersOrWords() throws {
        let push = try PushNotification(jsonData: Data(#"{"aps":{"badge":"5","content-available":true,"mutable-content":"true","relevance-score":"0.5"}}"#.utf8))
        #expect(push.badge == 5)
        #expect(push.isContentAvailable)
        #expect(push.isMutableContent)
        #expect(push.relevanceScore == 0.5)
        let userInfo = PushNotification(userInfo: ["aps": ["badge": 2.0, "content-available": 0, "mutable-content": 1]])
        #expect(userInfo.badge == 2)
        #expect(userInfo.isContentAvailable == false)
        #expect(userInfo.isMutableContent)
    }

    @Test func localizedAlertWithKeysAndArgumentsOfAnyScalarType() throws {
        let push = try PushNotification(jsonData: Data("""
            {"aps":{"alert":{"title-loc-key":"T","title-loc-args":["a"],"loc-key":"GAME_PLAY_REQUEST_FORMAT","loc-args":["Jenna",3],
             "subtitle-loc-key":"S","action-loc-key":"PLAY","launch-image":"l.png"},"thread-id":"chat9",
             "sound":{"critical":1,"name":"alarm.caf","volume":0.8},"interruption-level":"time-sensitive","target-content-id":"w1"}}
            """.utf8))
        let alert = try #require(push.alert)
        #expect(alert.locKey == "GAME_PLAY_REQUEST_FORMAT")
        #expect(alert.locArgs == ["Jenna", "3"])
        #expect(alert.titleLocKey == "T")
        #expect(alert.titleLocArgs == ["a"])
        #expect(alert.subtitleLocKey == "S")
        #expect(alert.actionLocKey == "PLAY")
        #expect(alert.launchImage == "l.png")
        #expect(push.threadId == "chat9")
        #expect(push.sound == PushSound(name: "alarm.caf", isCritical: true, volume: 0.8))
        #expect(push.interruptionLevel == "time-sensitive")
        #expect(push.targetContentId == "w1")
    }

    @Test func swiftBooleansAndNumbersInUserInfoKeepTheirKinds() {
        let push = PushNotification(userInfo: ["aps": [:] as [String: Any], "flag": true, "count": 3, "ratio": 1.5, "none": NSNull()])
        #expect(push.customData["flag"] == .bool(true))
        #expect(push.customData["count"] == .int(3))
        #expect(push.customData["ratio"] == .double(1.5))
        #expect(push.customData["none"] == .null)
    }

    @Test func jsonBooleansAndNumbersKeepTheirKinds() throws {
        let push = try PushNotification(jsonData: Data(#"{"flag":false,"count":1,"ratio":2.5,"list":[1,"a"]}"#.utf8))
        #expect(push.customData["flag"] == .bool(false))
        #expect(push.customData["count"] == .int(1))
        #expect(push.customData["ratio"] == .double(2.5))
        #expect(push.customData["list"] == [1, "a"])
    }

    @Test func anEmptyOrMalformedAlertIsNoAlert() {
        #expect(PushNotification(userInfo: ["aps": ["alert": ""]]).alert == nil)
        #expect(PushNotification(userInfo: ["aps": ["alert": [:] as [String: Any]]]).alert == nil)
        #expect(PushNotification(userInfo: ["aps": "garbage"]).alert == nil)
        #expect(PushNotification(userInfo: [:]).customData.isEmpty)
    }

    @Test func bytesThatAreNotAJSONObjectAreRejected() {
        #expect(throws: HeraldClientError.self) { try PushNotification(jsonData: Data("[1,2]".utf8)) }
        #expect(throws: HeraldClientError.self) { try PushNotification(jsonData: Data("not json".utf8)) }
    }
}
