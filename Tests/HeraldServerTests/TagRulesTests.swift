import Testing
@testable import HeraldServer

/// What a tag may be: 1-64 bytes of UTF-8 with no whitespace (ASCII or Unicode), control character,
/// comma or DEL. ASCII tags are checked byte by byte, others scalar by scalar: both must agree with the rule.
@Suite struct TagRulesTests {
    @Test(arguments: ["vip", "beta-2", "city_北京", "日本", "émoji🚀", "a.b:c/d", String(repeating: "x", count: 64),
                      String(repeating: "日", count: 21)])
    func accepts(_ tag: String) {
        #expect(Rules.validTag(tag))
    }

    @Test(arguments: ["", "has space", "a,b", "tab\there", "new\nline", "cr\rhere", "del\u{7f}", "nul\u{0}", "bell\u{7}",
                      "ideographic\u{3000}space", "nel\u{85}", "nbsp\u{a0}", "日本 語", "日本,語", String(repeating: "x", count: 65),
                      String(repeating: "日", count: 22)])
    func refuses(_ tag: String) {
        #expect(!Rules.validTag(tag))
    }
}
