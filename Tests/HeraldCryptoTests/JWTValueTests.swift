import Foundation
import Testing
import HeraldCrypto

@Suite struct JWTValueTests {
    @Test func parsesWhatFoundationParsesToTheSameValues() async throws {
        let text = #"{"s":"a\u00e9\ud83d\ude80\n\/","i":-42,"big":9007199254740993,"d":0.25,"e":1e3,"t":true,"f":false,"n":null,"a":[1,[2]],"o":{}}"#
        let value = try #require(JWT.Value(parsing: text))
        let foundation = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        guard case .object(let members) = value else { Issue.record("not an object"); return }
        #expect(members["s"] == .string(try #require(foundation["s"] as? String)))
        #expect(members["s"] == .string("aé🚀\n/"))
        #expect(members["i"] == .integer(-42))
        #expect(members["big"] == .integer(9_007_199_254_740_993))
        #expect(members["d"] == .number(0.25))
        #expect(members["e"] == .number(1000))
        #expect(members["t"] == .bool(true) && members["f"] == .bool(false) && members["n"] == .null)
        #expect(members["a"] == .array([.integer(1), .array([.integer(2)])]))
        #expect(members["o"] == .object([:]))
    }

    @Test func writtenTextParsesBackToTheSameValue() async throws {
        let value = JWT.Value.object([
            "number": .number(1.0), "small": .number(0.1), "huge": .number(1e20), "int": .integer(Int64.min),
            "text": .string("tab\tquote\"control\u{01}"), "list": .array([.null, .bool(false)]),
        ])
        #expect(JWT.Value(parsing: value.jsonText) == value)
        let foundation = try JSONSerialization.jsonObject(with: Data(value.jsonText.utf8)) as? [String: Any]
        #expect(foundation?["text"] as? String == "tab\tquote\"control\u{01}")
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\":}", "01", "-", "1.", "\"\\x\"", "\"\u{01}\"", "tru", "{\"a\":1,\"a\":2}",
                      "\"\\ud83d\"", "[1] [2]", String(repeating: "[", count: 100) + String(repeating: "]", count: 100)])
    func invalidJSONIsRejected(text: String) {
        #expect(JWT.Value(parsing: text) == nil)
    }
}
