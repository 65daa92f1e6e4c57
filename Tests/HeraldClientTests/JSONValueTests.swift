import Foundation
import Testing
@testable import HeraldClient

@Suite struct JSONValueTests {
    @Test func lenientReaders() {
        #expect(JSONValue.string("5").intValue == 5)
        #expect(JSONValue.string(" 7 ").intValue == 7)
        #expect(JSONValue.string("5.0").intValue == 5)
        #expect(JSONValue.double(5.5).intValue == nil)
        #expect(JSONValue.bool(true).intValue == 1)
        #expect(JSONValue.string("yes").boolValue == true)
        #expect(JSONValue.int(0).boolValue == false)
        #expect(JSONValue.string("maybe").boolValue == nil)
        #expect(JSONValue.int(42).stringValue == "42")
        #expect(JSONValue.double(3).stringValue == "3")
        #expect(JSONValue.array([]).stringValue == nil)
    }

    @Test func looseEquality() {
        #expect(JSONValue.string("5").looselyEquals(5))
        #expect(JSONValue.int(5).looselyEquals(.double(5)))
        #expect(JSONValue.bool(true).looselyEquals(1))
        #expect(JSONValue.int(1).looselyEquals(true))
        #expect(JSONValue.string("true").looselyEquals(true))
        #expect(!JSONValue.bool(false).looselyEquals(nil))
        #expect(!JSONValue.bool(true).looselyEquals([1]))
        #expect(!JSONValue.string("5").looselyEquals(6))
        #expect(!JSONValue.object([:]).looselyEquals(.string("")))
    }

    @Test func codableRoundTripKeepsKinds() throws {
        let value: JSONValue = ["b": true, "i": 3, "d": 2.5, "s": "x", "n": nil, "a": [1, "two"], "o": ["k": false]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
    }

    @Test func foundationRoundTrip() throws {
        let value: JSONValue = ["b": true, "i": 3, "d": 2.5, "a": ["x", nil]]
        let data = try JSONSerialization.data(withJSONObject: value.foundationValue)
        let back = JSONValue(foundationValue: try JSONSerialization.jsonObject(with: data))
        #expect(back == value)
    }
}
