import Foundation
import Testing

@testable import APNSCore

/// Each seed payload, expressed in the model: the model must encode to the canonical golden
/// bytes exactly, mean the same as the seed's own JSON, and decode back from both.
struct GoldenPayloadTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let model: APNSPayload
        var testDescription: String { name }
    }

    static let imoocAlerts: [Int: String] = [
        1: "从搭建Golang开发环境开始， 一步步介绍Golang系统库之输入输出的功能及特性。结合行数统计及图片读取，在实战中扎扎实实的学习Golang",
        2: "随着互联网的发展速度迅猛，前端工程师职业越来越火热，想学习Web前端技能吗 ? 该路径从基础知识到实战案例演练，一步步带您快速掌握如何搭建网站静态页面、开发网站交互特效，为您打开WEB前端工程师大门。还在等什么？快来学习吧!",
        3: "CodeStriker CodeStriker是一个免费&开源的Web应用程序，可以帮助开发人员基于Web的代码审查。它不但允许开发人员将问题、意见和决定记录在数据库中，还为实际执行代码审查提供了一个舒适的工作区域。 官方网站：http://codestriker.sourceforge.net/index.html 2）RhodeCode Rhode",
        4: "高薪捉拿程序大拿",
    ]

    static func imooc(_ type: Int, badge: Int, data: JSONObject) -> Case {
        Case(
            name: "seed001-type\(type)",
            model: APNSPayload(
                aps: APNSAps(alert: .text(imoocAlerts[type]!), badge: badge, sound: .default, extra: ["data": .object(data)])))
    }

    static let type5 = APNSPayload(
        aps: APNSAps(
            alert: .content(APNSAlertContent(title: "我是一个主标题", subtitle: "我是一个副标题", body: "我是整个alert的标题")),
            badge: 13,
            sound: .default,
            category: "CATEGORY_ID",
            mutableContent: true,
            extra: [
                "data": [
                    "tid": 10003, "id": 0, "type": 0, "systype": 5, "url": "http://t.imooc.com", "helloKey": "helloValue",
                ]
            ]),
        custom: ["my-attachment": "http://newpic.jxnews.com.cn/003/001/209/00300120964_fab36aec.jpg"])

    static let cases: [Case] = [
        Case(
            name: "seed000-breaking-news",
            model: APNSPayload(
                aps: APNSAps(alert: "Breaking News!", sound: .default, extra: ["link_url": "https://raywenderlich.com"]))),
        Case(
            name: "seed000-news-category",
            model: APNSPayload(
                aps: APNSAps(
                    alert: "New Posts!", sound: .default, category: "NEWS_CATEGORY",
                    extra: ["link_url": "https://raywenderlich.com"]))),
        Case(name: "seed000-content-available", model: .background()),
        Case(
            name: "seed001-comment",
            model: APNSPayload(
                aps: APNSAps(
                    alert: "此处有两个服务器需要选择，如果是开发测试用，选择第二名sandbox的服务器并使用Dev的pem证书，如果是正是发布，使用Product的pem并选用正式的服务器",
                    badge: 10, sound: "default", category: "CATEGORY_ID",
                    extra: [
                        "data": ["tid": 1_000_001, "id": 101, "type": 0, "systype": 1, "url": "http://www.imooc.com/abc.html"]
                    ]))),
        imooc(1, badge: 10, data: ["tid": 10000, "id": 492, "type": 0, "systype": 1]),
        imooc(2, badge: 11, data: ["tid": 10001, "id": 32, "type": 0, "systype": 2]),
        imooc(3, badge: 12, data: ["tid": 10002, "id": 2493, "type": 0, "systype": 3]),
        imooc(4, badge: 12, data: ["tid": 27820, "id": 2493, "type": 0, "systype": 4, "url": "http://t.imooc.com"]),
        Case(name: "seed001-type5", model: type5),
        Case(
            name: "seed002-game-request",
            model: .alert(title: "Game Request", body: "Bob wants to play poker", badge: 1)),
        Case(
            name: "seed003-hello",
            model: APNSPayload(aps: APNSAps(alert: "hello, everyone", badge: 2, sound: .default))),
        Case(
            name: "seed003-action",
            model: APNSPayload(aps: APNSAps(alert: "hello, everyone", badge: 4), custom: ["action": ["type": 4]])),
    ]

    @Test(arguments: cases)
    func modelEncodesToCanonicalBytes(_ golden: Case) throws {
        let expected = try GoldenFiles.canonical(golden.name)
        let encoded = golden.model.jsonBytes()
        #expect(
            encoded == expected,
            "\(golden.name):\n got      \(String(decoding: encoded, as: UTF8.self))\n expected \(String(decoding: expected, as: UTF8.self))"
        )
    }

    @Test(arguments: cases)
    func encodingMeansTheSameAsTheSeedSource(_ golden: Case) throws {
        let source = try JSONValue(parsing: try GoldenFiles.source(golden.name))
        let encoded = try JSONValue(parsing: golden.model.jsonBytes())
        #expect(encoded == source)
    }

    @Test(arguments: cases)
    func sourceAndCanonicalDecodeToTheModel(_ golden: Case) throws {
        #expect(try APNSPayload(jsonBytes: GoldenFiles.source(golden.name)) == golden.model)
        #expect(try APNSPayload(jsonBytes: GoldenFiles.canonical(golden.name)) == golden.model)
    }

    @Test(arguments: cases)
    func decodingSourceThenEncodingGivesCanonicalBytes(_ golden: Case) throws {
        let decoded = try APNSPayload(jsonBytes: GoldenFiles.source(golden.name))
        #expect(decoded.jsonBytes() == (try GoldenFiles.canonical(golden.name)))
    }

    @Test func phpEscapedType5IsThe450BytePayloadTheReferenceMentions() throws {
        let source = try GoldenFiles.source("seed001-type5")
        #expect(source.count == 450)
        #expect(String(decoding: source, as: UTF8.self).contains("\\u6211"))
        // Our UTF-8 form is smaller than PHP's \u escapes, and has no "\/".
        let canonical = Self.type5.jsonBytes()
        #expect(canonical.count == 379)
        #expect(!String(decoding: canonical, as: UTF8.self).contains("\\/"))
    }

    @Test func thePrintedBreakingNewsPayloadIsRejectedWithItsPosition() throws {
        let printed = try GoldenFiles.bytes("seed000-breaking-news.printed.txt")
        #expect {
            _ = try APNSPayload(jsonBytes: printed)
        } throws: { error in
            let message = (error as? APNSDecodingError)?.description ?? ""
            // A comma is missing after "default": the parser stops where "link_url" starts, byte 73.
            return message.contains("byte 73") && message.contains("expected ',' or '}' after the value of \"sound\"")
        }
    }

    @Test func seed001CommandZeroFrameMatchesPHPPack() throws {
        let golden = try GoldenFiles.hex("seed001-pushme-command0.hex")
        let token = try DeviceToken(hex: "43e798c31a282d129a34d84472bbdd7632562ff0732b58a85a27c5d9fdf59b69")
        let payload = try GoldenFiles.source("seed001-type5")
        let frame = try LegacyNotification.simple(deviceToken: token.bytes, payload: payload).encoded()
        #expect(frame == golden)
        #expect(frame.count == 1 + 2 + 32 + 2 + 450)

        var decoder = LegacyNotificationDecoder()
        decoder.append(golden)
        let decoded = try #require(try decoder.next())
        #expect(decoded.format == .simple)
        #expect(decoded.token == token)
        #expect(try APNSPayload(jsonBytes: decoded.payload) == Self.type5)
    }
}
