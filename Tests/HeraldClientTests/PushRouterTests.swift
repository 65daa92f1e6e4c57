import Foundation
import Testing
@testable import HeraldClient

enum Destination: Equatable, Sendable {
    case course(Int)
    case plan(Int)
    case web(URL)
    case comments
    case link(String)
}

@Suite struct PushRouterTests {
    var router: PushRouter<Destination> {
        var router = PushRouter<Destination>()
        // Seed 001: data.systype 1 = course, 2 = plan, 5 = web page.
        router.when("data", "systype", equals: 1) { $0.value(at: "data", "id")?.intValue.map(Destination.course) }
        router.when("data", "systype", equals: 2) { $0.value(at: "data", "id")?.intValue.map(Destination.plan) }
        router.when("data", "systype", equals: 5) { push in
            push.value(at: "data", "url")?.stringValue.flatMap(URL.init(string:)).map(Destination.web)
        }
        // Seed 003: LeanCloud's action.type 4.
        router.when("action", "type", equals: 4) { _ in .comments }
        // Seed 004: a custom "key" holding a URL.
        router.whenPresent("key") { value, _ in value.stringValue.map(Destination.link) }
        return router
    }

    @Test func seed001SystypesRouteToTheirScreens() throws {
        let course = try PushNotification(jsonData: Data(#"{"aps":{"alert":"x","data":{"tid":10000,"id":492,"type":0,"systype":1}}}"#.utf8))
        let web = try PushNotification(jsonData: Data(#"{"aps":{"alert":"x","data":{"id":0,"systype":5,"url":"http://t.imooc.com"}}}"#.utf8))
        #expect(router.destination(for: course) == .course(492))
        #expect(router.destination(for: web) == .web(URL(string: "http://t.imooc.com")!))
    }

    @Test func valuesWrittenAsStringsStillMatch() {
        let push = PushNotification(userInfo: ["aps": ["alert": "x"], "data": ["systype": "2", "id": "32"]])
        #expect(router.destination(for: push) == .plan(32))
    }

    @Test func seed003ActionTypeRoutes() {
        let push = PushNotification(userInfo: ["action": ["type": 4], "aps": ["alert": "hello, everyone"]])
        #expect(router.destination(for: push) == .comments)
    }

    @Test func seed004CustomKeyRoutes() {
        let push = PushNotification(userInfo: ["key": "https://example.com", "aps": ["alert": "x"]])
        #expect(router.destination(for: push) == .link("https://example.com"))
    }

    @Test func aPushNoRuleKnowsHasNoDestination() {
        #expect(router.destination(for: PushNotification(userInfo: ["aps": ["alert": "x"], "data": ["systype": 9]])) == nil)
        // A matching rule that cannot build its destination lets the others try.
        #expect(router.destination(for: PushNotification(userInfo: ["data": ["systype": 5]])) == nil)
    }

    @Test func theFirstMatchingRuleWins() {
        var router = PushRouter<String>()
        router.add { _ in nil }
        router.add { _ in "first" }
        router.add { _ in "second" }
        #expect(router.destination(for: PushNotification(userInfo: [:])) == "first")
    }
}
