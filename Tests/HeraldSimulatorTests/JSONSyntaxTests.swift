import APNSCore
import Foundation
import Testing
@testable import HeraldSimulator

@Suite("Payload JSON check")
struct JSONSyntaxTests {
    static let objects = [
        #"{}"#, #" {"aps":{}} "#, #"{"a":[1,-2.5e+3,0,0.1,true,false,null,"\u00e9\n",{"b":[]}]}"#,
        #"{"emoji":"😀","cjk":"通知"}"#, #"{"n":-0}"#, #"{"e":1E5}"#, "{\"tab\":\"a\\tb\"}\n",
    ]
    static let notObjects = [
        "", " ", "[]", "1", #""s""#, "null", #"{"a":}"#, #"{"a" 1}"#, #"{"a":1,}"#, #"{"a":1}x"#, #"{"a":01}"#,
        #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":"\x"}"#, #"{"a":"\u12"}"#, "{\"a\":\"\u{01}\"}", #"{"a":tru}"#,
        #"{'a':1}"#, #"{"a":1"#, #"{"a":"open}"#, #"{a:1}"#, #"{"a":+1}"#, #"{"a":1e}"#,
        String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
    ]

    @Test(arguments: objects)
    func acceptsObjects(text: String) {
        #expect(JSONSyntax.isObject(Array(text.utf8)))
        // Agrees with the full parser.
        if case .object? = try? JSONValue(parsing: Array(text.utf8)) {} else { Issue.record("the parser disagrees on \(text)") }
    }

    @Test(arguments: notObjects)
    func rejectsEverythingElse(text: String) {
        #expect(!JSONSyntax.isObject(Array(text.utf8)))
    }

    @Test func rejectsInvalidUTF8() {
        #expect(!JSONSyntax.isObject(Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)))
        #expect(JSONSyntax.isObject(Array(#"{"a":""#.utf8) + [0xC3, 0xA9] + Array(#""}"#.utf8)))
    }

    @Test func deepNestingIsRefusedNotFatal() {
        let deep = #"{"a":"# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}"
        #expect(!JSONSyntax.isObject(Array(deep.utf8)))
    }
}
